//! The values of command-line flags, parsed in one place for every subcommand.
//!
//! Each function here is a clap value parser (`#[arg(value_parser = …)]`): a bad value is a
//! usage error that names the flag and exits 2 before anything runs, never a panic later (as
//! `Duration::from_secs_f64(f64::INFINITY)` would be).
//!
//! - [`parse_duration`]: every flag given in seconds (`--timeout`, `--ready-timeout`,
//!   `--scenario-timeout`, `--time`, `--shrink-time`): a positive, finite number of seconds,
//!   at most [`MAX_SECONDS`] (one day).
//! - [`at_least_one`] and [`jobs`]: counts where 0 means nothing (`--max-message`,
//!   `--max-findings`, `--jobs`); `--cases` uses clap's `value_parser!(u64).range(1..)`.
//! - [`Destination`]: every report flag (`--json`, `--junit`, `--markdown`) of every
//!   subcommand takes a file path or `-` for stdout; at most one report goes to stdout.
//! - [`DEFAULT_TIMEOUT`]: `--timeout` means the wait for one reply, 2 s by default, in `run`,
//!   `negotiate`, `fuzz` and `replay` alike.

use std::path::PathBuf;
use std::time::Duration;

use clap::builder::RangedU64ValueParser;

/// `--timeout` of every subcommand: how long one expected reply may take. Two seconds, the
/// figure every verdict quotes ("no reply within 2 s"): long enough for an interpreted server on
/// a loaded machine, short enough that a silent server costs little.
pub const DEFAULT_TIMEOUT: &str = "2";

/// The longest duration any flag accepts: one day, in seconds.
pub const MAX_SECONDS: f64 = 86_400.0;

/// The most checks `--jobs` lets run at once.
pub const MAX_JOBS: u64 = 1024;

/// A duration flag: a decimal number of seconds (`2`, `0.5`, `1e-3`), positive, finite, at most
/// one day, and not so small that it rounds to zero nanoseconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let secs: f64 = s
        .parse()
        .map_err(|_| "expected a number of seconds, such as 2 or 0.5".to_owned())?;
    duration_from_secs(secs)
}

/// The rule of [`parse_duration`] for a number already read (a reproducer's recorded timeout).
pub fn duration_from_secs(secs: f64) -> Result<Duration, String> {
    if secs.is_nan() {
        return Err("expected a number of seconds, not NaN".into());
    }
    if secs <= 0.0 {
        return Err("must be more than 0 seconds".into());
    }
    if secs > MAX_SECONDS {
        return Err(format!("must be at most {MAX_SECONDS} seconds (one day)"));
    }
    match Duration::try_from_secs_f64(secs) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => Err("must be at least one nanosecond".into()),
    }
}

/// A count where 0 makes no sense (`--max-message`, `--max-findings`).
pub fn at_least_one() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::<usize>::new().range(1..)
}

/// The smallest `--max-message`: every JSON-RPC envelope (and the head mcpspec keeps of a line
/// over the bound, to read its id) fits in it.
pub const MIN_MAX_MESSAGE: u64 = 4096;

/// `--max-message`: at least [`MIN_MAX_MESSAGE`] bytes.
pub fn max_message() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::<usize>::new().range(MIN_MAX_MESSAGE..)
}

/// The largest `--max-items`: beyond it a run reads more than any report can show usefully.
pub const MAX_ITEMS: usize = 10_000;

/// `--max-items`: 1 to [`MAX_ITEMS`].
pub fn max_items() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::<usize>::new().range(1..=MAX_ITEMS as u64)
}

/// `--revision`: a revision mcpspec knows (`mcpspec_core::protocol::version::ALL`), as the
/// catalogue spells it.
pub fn revision(text: &str) -> Result<&'static str, String> {
    let known = mcpspec_core::protocol::version::ALL;
    known.iter().copied().find(|v| *v == text).ok_or_else(|| {
        format!(
            "`{text}` is not a revision mcpspec knows (one of {})",
            known.join(", ")
        )
    })
}

/// `--jobs`: 1 to [`MAX_JOBS`].
pub fn jobs() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::<usize>::new().range(1..=MAX_JOBS)
}

/// Seconds as the shortest decimal that reads back as the same duration (`2`, `0.3`), for
/// commands mcpspec prints.
pub fn format_seconds(d: Duration) -> String {
    let whole = d.as_secs();
    let nanos = d.subsec_nanos();
    if nanos == 0 {
        return whole.to_string();
    }
    let fraction = format!("{nanos:09}");
    format!("{whole}.{}", fraction.trim_end_matches('0'))
}

/// The chunk a streamed report is redacted in.
const REDACTED_CHUNK: usize = 64 * 1024;

/// Where a report flag sends its report: a file, or stdout for `-`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    Stdout,
    File(PathBuf),
}

impl Destination {
    /// A report flag's value: `-` for stdout, else a file path (not empty).
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "-" => Ok(Destination::Stdout),
            "" => Err("expected a file path, or - for stdout".into()),
            path => Ok(Destination::File(PathBuf::from(path))),
        }
    }

    pub fn is_stdout(&self) -> bool {
        *self == Destination::Stdout
    }

    /// Streams a report into the file, or onto stdout ending its line (quiet once stdout is
    /// closed): a large report (a JSON report carries every transcript) is never held whole in
    /// memory as text. What is written is redacted ([`mcpspec_core::redact`]): this and
    /// [`Destination::write`] are the one way reports and transcripts leave mcpspec.
    pub fn stream(
        &self,
        render: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> Result<(), String> {
        use std::io::Write as _;
        match self {
            Destination::Stdout => {
                let stdout = std::io::stdout();
                // Buffered before redaction: the secrets are looked for once per large chunk,
                // not once per small write of a renderer.
                let mut w = std::io::BufWriter::with_capacity(
                    REDACTED_CHUNK,
                    mcpspec_core::redact::Writer::new(stdout.lock()),
                );
                let written = render(&mut w)
                    .and_then(|()| w.write_all(b"\n"))
                    .and_then(|()| w.flush());
                // As `out!`: a closed stdout drops the output quietly, another failure is
                // noted on stderr; neither changes the exit code.
                if let Err(e) = written {
                    if e.kind() != std::io::ErrorKind::BrokenPipe {
                        crate::output::errln!(
                            "mcpspec: cannot write to stdout ({e}); output dropped"
                        );
                    }
                }
                Ok(())
            }
            Destination::File(path) => {
                let cannot = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
                let file = std::fs::File::create(path).map_err(cannot)?;
                let mut w = std::io::BufWriter::with_capacity(
                    REDACTED_CHUNK,
                    mcpspec_core::redact::Writer::new(file),
                );
                render(&mut w).and_then(|()| w.flush()).map_err(cannot)
            }
        }
    }

    /// Writes `text` to the file, or prints it on stdout (quiet once stdout is closed);
    /// redacted.
    pub fn write(&self, text: &str) -> Result<(), String> {
        match self {
            Destination::Stdout => {
                crate::output::out!("{text}");
                Ok(())
            }
            Destination::File(path) => {
                std::fs::write(path, mcpspec_core::redact::text(text).as_bytes())
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))
            }
        }
    }
}

/// A report flag that once was a switch (`negotiate --json`, `list --json`, `coverage --json`,
/// `coverage --markdown`): given without a value it still means stdout, with a note on stderr.
pub fn destination_or_stdout(
    flag: &str,
    given: Option<Option<Destination>>,
) -> Option<Destination> {
    match given? {
        Some(destination) => Some(destination),
        None => {
            crate::output::errln!(
                "mcpspec: `{flag}` without a value is deprecated; write `{flag} -` for stdout \
                 or `{flag} FILE`"
            );
            Some(Destination::Stdout)
        }
    }
}

/// At most one report may take stdout: the flags (name, destination) that ask for it, or a
/// usage error naming them when more than one does.
pub fn one_on_stdout(flags: &[(&str, Option<&Destination>)]) -> Result<Option<String>, String> {
    let on_stdout: Vec<&str> = flags
        .iter()
        .filter(|(_, d)| d.is_some_and(Destination::is_stdout))
        .map(|(name, _)| *name)
        .collect();
    match on_stdout.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some((*one).to_owned())),
        many => Err(format!(
            "only one report can go to stdout; {} each say `-`",
            many.join(" and ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_goes_to_a_file_or_to_stdout_once() {
        assert_eq!(Destination::parse("-"), Ok(Destination::Stdout));
        assert_eq!(
            Destination::parse("out/r.json"),
            Ok(Destination::File("out/r.json".into()))
        );
        assert!(Destination::parse("").is_err());
        let file = Destination::File("r.xml".into());
        assert_eq!(
            one_on_stdout(&[
                ("--json", Some(&Destination::Stdout)),
                ("--junit", Some(&file))
            ]),
            Ok(Some("--json".into()))
        );
        assert_eq!(
            one_on_stdout(&[("--json", None), ("--junit", Some(&file))]),
            Ok(None)
        );
        let both = one_on_stdout(&[
            ("--json", Some(&Destination::Stdout)),
            ("--markdown", Some(&Destination::Stdout)),
        ]);
        assert_eq!(
            both,
            Err("only one report can go to stdout; --json and --markdown each say `-`".into())
        );
    }

    #[test]
    fn accepts_positive_finite_seconds_up_to_a_day() {
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("0.5"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1e-3"), Ok(Duration::from_millis(1)));
        assert_eq!(parse_duration("86400"), Ok(Duration::from_secs(86_400)));
    }

    #[test]
    fn rejects_everything_else_with_a_reason() {
        for bad in [
            "", "0", "-0", "-1", "NaN", "nan", "inf", "-inf", "infinity", "1e300", "86400.5",
            "1e-300", "2s", " 2", "two", "٣", "1,5", "0x10",
        ] {
            let err = parse_duration(bad).expect_err(bad);
            assert!(!err.is_empty(), "{bad}");
        }
        assert!(parse_duration("inf").unwrap_err().contains("one day"));
        assert!(parse_duration("-1").unwrap_err().contains("more than 0"));
    }

    #[test]
    fn seconds_print_back_exactly() {
        for s in ["1", "0.3", "2.5", "0.000000001", "86400", "15"] {
            let d = parse_duration(s).unwrap();
            assert_eq!(format_seconds(d), s);
            assert_eq!(parse_duration(&format_seconds(d)), Ok(d));
        }
    }
}
