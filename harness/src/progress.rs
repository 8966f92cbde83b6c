//! Progress of long runs on stderr (not MCP progress, which `catalogue/progress.rs` judges), for
//! `run` (checks done of the total, failing so far, the check running longest) and `fuzz` (elapsed of
//! the time budget, cases, messages/s, findings). Where it goes is one decision, [`mode`]:
//!
//! - **a terminal, `CI` unset**: an `indicatif` bar, redrawn as work is done, cleared at the end;
//! - **anything else** (a pipe, a file, a CI log): one plain line at most every
//!   [`PLAIN_EVERY`], the first only once a run has lasted that long, so a short run prints
//!   nothing and a long one shows in a log that it is alive.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::outcome::Kind;

/// The least time between two plain status lines, and before the first.
pub const PLAIN_EVERY: Duration = Duration::from_secs(10);

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A progress bar redrawn in place (a terminal).
    Bar,
    /// A plain line at most every [`PLAIN_EVERY`] (a pipe, a file, CI).
    Plain,
}

/// A bar only on a terminal outside CI: a CI log keeps every redraw, a pipe cannot redraw.
pub fn mode(stderr_is_terminal: bool, ci: bool) -> Mode {
    if stderr_is_terminal && !ci {
        Mode::Bar
    } else {
        Mode::Plain
    }
}

/// [`mode`] for this process: stderr, and `CI` set to anything but the empty string.
pub fn mode_here() -> Mode {
    mode(
        std::io::stderr().is_terminal(),
        std::env::var_os("CI").is_some_and(|v| !v.is_empty()),
    )
}

/// When a plain line is due: once `every` has passed since the start, then since the last line.
#[derive(Debug)]
pub struct Throttle {
    every: Duration,
    last: Instant,
}

impl Throttle {
    pub fn new(every: Duration, start: Instant) -> Self {
        Throttle { every, last: start }
    }

    /// Whether a line is due at `now`; if so, the next is due `every` later.
    pub fn due(&mut self, now: Instant) -> bool {
        if now.duration_since(self.last) < self.every {
            return false;
        }
        self.last = now;
        true
    }
}

/// One line of `run`'s progress: the check that has run longest when one runs (with how many
/// run beside it), else the last one done.
pub fn run_line(
    done: usize,
    total: usize,
    failing: usize,
    elapsed: Duration,
    now: Now<'_>,
) -> String {
    let now = match now {
        Now::Running(id, took, 1) => format!("running: {id}, {:.0} s", took.as_secs_f64()),
        Now::Running(id, took, n) => format!(
            "running: {id}, {:.0} s, and {} more",
            took.as_secs_f64(),
            n - 1
        ),
        Now::LastDone(id) => format!("last done: {id}"),
    };
    format!(
        "{done}/{total} checks done, {failing} failing, {:.0} s ({now})",
        elapsed.as_secs_f64()
    )
}

/// What a `run` line names beside the counts.
#[derive(Debug, Clone, Copy)]
pub enum Now<'a> {
    /// The check that has run longest, for how long, and how many run in all.
    Running(&'a str, Duration, usize),
    /// No check runs: the last one done (`none yet` before the first).
    LastDone(&'a str),
}

/// One line of `fuzz`'s progress.
pub fn fuzz_line(
    elapsed: Duration,
    budget: Duration,
    cases: u64,
    messages: u64,
    findings: usize,
) -> String {
    format!(
        "{:.0}/{:.0} s, {cases} cases, {:.0} messages/s, {findings} finding(s)",
        elapsed.as_secs_f64(),
        budget.as_secs_f64(),
        messages as f64 / elapsed.as_secs_f64().max(1e-3)
    )
}

/// The shown part of a [`Progress`]: a bar (drawn from the first update on, so that what a
/// command prints before its work starts is not interleaved with it), or the throttle of plain
/// lines.
#[derive(Debug)]
enum Shown {
    Bar(OnceLock<ProgressBar>, u64),
    Plain(Mutex<Throttle>),
}

/// Progress on stderr, as [`mode`] decides: `label` names the command in plain lines.
#[derive(Debug)]
pub struct Progress {
    label: &'static str,
    started: Instant,
    shown: Shown,
    run: Mutex<RunCounts>,
    running: Option<RunningChecks>,
}

#[derive(Debug, Default)]
struct RunCounts {
    done: usize,
    failing: usize,
    last: String,
}

impl Progress {
    /// Progress of `length` units (checks, or milliseconds of the fuzz budget).
    pub fn new(label: &'static str, length: u64, mode: Mode) -> Self {
        let started = Instant::now();
        let shown = match mode {
            Mode::Bar => Shown::Bar(OnceLock::new(), length),
            Mode::Plain => Shown::Plain(Mutex::new(Throttle::new(PLAIN_EVERY, started))),
        };
        Progress {
            label,
            started,
            shown,
            run: Mutex::new(RunCounts::default()),
            running: None,
        }
    }

    /// `run`: names the checks running now, as `running` tells.
    pub fn watching(mut self, running: RunningChecks) -> Self {
        self.running = Some(running);
        self
    }

    /// `run`: one more check is done, check `id` with verdict `kind`.
    pub fn check_done(&self, total: usize, id: &str, kind: Kind) {
        {
            let mut counts = self.run.lock().unwrap_or_else(|e| e.into_inner());
            counts.done += 1;
            if matches!(kind, Kind::Fail | Kind::Error) {
                counts.failing += 1;
            }
            id.clone_into(&mut counts.last);
        }
        self.tick_run(total);
    }

    /// `run`: shows the counts so far if a line is due. Called on every check done, and now and
    /// then by a ticker, so that a long check does not silence a plain log.
    pub fn tick_run(&self, total: usize) {
        let (done, failing, last) = {
            let counts = self.run.lock().unwrap_or_else(|e| e.into_inner());
            (counts.done, counts.failing, counts.last.clone())
        };
        let last = if last.is_empty() { "none yet" } else { &last };
        let running = self.running.as_ref().and_then(|r| r.longest());
        let now = match running {
            Some((id, took, n)) => Now::Running(id, took, n),
            None => Now::LastDone(last),
        };
        self.show(done as u64, || {
            run_line(done, total, failing, self.started.elapsed(), now)
        });
    }

    /// `fuzz`: the counters so far, `elapsed` of the `budget` spent generating.
    pub fn fuzzed(
        &self,
        elapsed: Duration,
        budget: Duration,
        cases: u64,
        messages: u64,
        findings: usize,
    ) {
        let position = elapsed.min(budget).as_millis() as u64;
        self.show(position, || {
            fuzz_line(elapsed, budget, cases, messages, findings)
        });
    }

    /// `fuzz --cases N` without `--time`: the counters so far, `cases` of `of` generated.
    pub fn fuzzed_cases(
        &self,
        elapsed: Duration,
        cases: u64,
        of: u64,
        messages: u64,
        findings: usize,
    ) {
        self.show(cases.min(of), || {
            format!(
                "{cases}/{of} cases, {:.0} s, {:.0} messages/s, {findings} finding(s)",
                elapsed.as_secs_f64(),
                messages as f64 / elapsed.as_secs_f64().max(1e-3)
            )
        });
    }

    fn show(&self, position: u64, line: impl FnOnce() -> String) {
        match &self.shown {
            Shown::Bar(bar, length) => {
                let bar = bar.get_or_init(|| new_bar(self.label, *length));
                bar.set_position(position);
                bar.set_message(line());
            }
            Shown::Plain(throttle) => {
                let due = throttle
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .due(Instant::now());
                if due {
                    crate::output::errln!("{}: {}", self.label, line());
                }
            }
        }
    }

    /// Clears the bar (the report follows); a plain line stays where it is.
    pub fn finish(&self) {
        if let Shown::Bar(bar, _) = &self.shown {
            if let Some(bar) = bar.get() {
                bar.finish_and_clear();
            }
        }
    }
}

/// A bar of `length` units on stderr, coloured as `--color` says.
fn new_bar(label: &str, length: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(length), ProgressDrawTarget::stderr());
    let template = if crate::output::color_stderr() {
        "{prefix} {bar:30.cyan/blue} {msg}"
    } else {
        "{prefix} {bar:30} {msg}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(label.to_owned());
    bar
}

/// The checks running now, each with when it started: what a status line names while a long
/// check holds the run (results are handed over in catalogue order, so the last one done can
/// be far behind what runs).
#[derive(Debug, Clone, Default)]
pub struct RunningChecks(Arc<std::sync::Mutex<Vec<(&'static str, Instant)>>>);

impl RunningChecks {
    /// `id` runs from now until the guard is dropped.
    pub(crate) fn enter(&self, id: &'static str) -> RunningGuard {
        self.lock().push((id, Instant::now()));
        RunningGuard {
            running: self.clone(),
            id,
        }
    }

    /// The check that has run longest, for how long, and how many run in all.
    pub fn longest(&self) -> Option<(&'static str, Duration, usize)> {
        let running = self.lock();
        let (id, since) = running.iter().min_by_key(|(_, since)| *since)?;
        Some((id, since.elapsed(), running.len()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(&'static str, Instant)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Takes its check off [`RunningChecks`] when the check ends, however it ends.
pub(crate) struct RunningGuard {
    running: RunningChecks,
    id: &'static str,
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        let mut running = self.running.lock();
        if let Some(at) = running.iter().position(|(id, _)| *id == self.id) {
            running.swap_remove(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_only_on_a_terminal_outside_ci() {
        assert_eq!(mode(true, false), Mode::Bar);
        assert_eq!(mode(true, true), Mode::Plain);
        assert_eq!(mode(false, false), Mode::Plain);
        assert_eq!(mode(false, true), Mode::Plain);
    }

    #[test]
    fn plain_lines_come_at_most_every_ten_seconds_and_not_before() {
        let start = Instant::now();
        let mut throttle = Throttle::new(PLAIN_EVERY, start);
        let at = |secs: f64| start + Duration::from_secs_f64(secs);
        let due: Vec<f64> = [0.5, 3.0, 9.9, 10.0, 12.0, 19.9, 20.5, 21.0, 45.0, 46.0]
            .into_iter()
            .filter(|s| throttle.due(at(*s)))
            .collect();
        assert_eq!(due, [10.0, 20.5, 45.0]);
    }

    #[test]
    fn lines_say_what_is_done() {
        assert_eq!(
            run_line(
                57,
                141,
                2,
                Duration::from_millis(12_400),
                Now::LastDone("jsonrpc/batch/rejected")
            ),
            "57/141 checks done, 2 failing, 12 s (last done: jsonrpc/batch/rejected)"
        );
        let running = |n| {
            run_line(
                3,
                141,
                0,
                Duration::from_secs(11),
                Now::Running("deadlock/initialize/stall", Duration::from_millis(9_600), n),
            )
        };
        assert_eq!(
            running(1),
            "3/141 checks done, 0 failing, 11 s (running: deadlock/initialize/stall, 10 s)"
        );
        assert_eq!(
            running(2),
            "3/141 checks done, 0 failing, 11 s \
             (running: deadlock/initialize/stall, 10 s, and 1 more)"
        );
        assert_eq!(
            fuzz_line(
                Duration::from_secs(20),
                Duration::from_secs(60),
                1234,
                10_600,
                1
            ),
            "20/60 s, 1234 cases, 530 messages/s, 1 finding(s)"
        );
    }
}
