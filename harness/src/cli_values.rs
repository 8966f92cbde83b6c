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

use std::time::Duration;

use clap::builder::RangedU64ValueParser;

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

#[cfg(test)]
mod tests {
    use super::*;

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
