//! The status line of long runs (not MCP progress, which `catalogue/progress.rs` judges): one
//! updating line on stderr, only on a terminal, and only once the run has taken longer than
//! [`StatusLine::DELAY`] (short runs print nothing).

use std::io::Write as _;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::CheckResult;
use crate::outcome::Kind;

/// Counts finished checks and redraws `[done/total] failures: n  last-id`.
#[derive(Debug)]
pub struct StatusLine {
    total: usize,
    started: Instant,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    done: usize,
    failing: usize,
    drawn: bool,
}

impl StatusLine {
    /// How long a run goes before the line appears.
    pub const DELAY: Duration = Duration::from_secs(1);

    pub fn new(total: usize) -> Self {
        StatusLine {
            total,
            started: Instant::now(),
            state: Mutex::new(State::default()),
        }
    }

    /// The line for the current state, if it should be drawn now.
    pub fn tick(&self, result: &CheckResult) -> Option<String> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.done += 1;
        if matches!(result.outcome.kind, Kind::Fail | Kind::Error) {
            state.failing += 1;
        }
        if self.started.elapsed() < Self::DELAY {
            return None;
        }
        state.drawn = true;
        Some(format!(
            "[{}/{}] {} failing  {}",
            state.done, self.total, state.failing, result.id
        ))
    }

    /// Draws the tick on stderr (`\r`, clear to end of line).
    pub fn draw(&self, result: &CheckResult) {
        if let Some(line) = self.tick(result) {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K{line}");
            let _ = err.flush();
        }
    }

    /// Clears the line, if one was drawn.
    pub fn finish(&self) {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{Level, Outcome};

    fn result(kind: Kind) -> CheckResult {
        CheckResult {
            id: "a/b".into(),
            requirements: vec![],
            level: Level::Must,
            outcome: Outcome::new(kind, "m"),
            duration_ms: 0,
            transcript_path: None,
            baseline_reason: None,
            transport: None,
            transcript: vec![],
        }
    }

    #[test]
    fn short_runs_draw_nothing_long_runs_count() {
        let quick = StatusLine::new(3);
        assert_eq!(quick.tick(&result(Kind::Pass)), None);
        let slow = StatusLine {
            started: Instant::now() - 2 * StatusLine::DELAY,
            ..StatusLine::new(3)
        };
        assert_eq!(
            slow.tick(&result(Kind::Fail)).as_deref(),
            Some("[1/3] 1 failing  a/b")
        );
        assert_eq!(
            slow.tick(&result(Kind::Pass)).as_deref(),
            Some("[2/3] 1 failing  a/b")
        );
    }
}
