//! What the command line prints, written so that a closed pipe is no panic.
//!
//! Rust ignores SIGPIPE, so writing to a pipe whose reader has gone (`mcpspec list | head -1`)
//! returns an EPIPE error, on which `println!` panics. Every line mcpspec prints goes through
//! `outln!` / `out!` instead: the first failed write marks stdout closed and later output is
//! dropped, while the program carries on to its own exit code (a report still goes to the
//! files it was asked for). A failure other than a closed pipe (a full disk, say) is said once
//! on stderr. `errln!` writes stderr and ignores failures: there is nowhere left to report
//! them. The macros are exported for mcpspec's own crates above this one (`mcpspec-client`, the
//! `mcpspec` command line), hidden from the docs, and named by path (`output::errln!`); the
//! `mcpspec` crate users link does not re-export them.
//!
//! Every line is redacted on its way out ([`mcpspec_core::redact`]): a credential never reaches
//! the console or a log.
//!
//! Colour is decided here too, once per stream: `--color always|never` wins, and `auto` (the
//! default) colours a stream only when it is a terminal and `NO_COLOR` is unset or empty
//! (no-color.org).

use std::fmt;
use std::io::IsTerminal;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// `--color`: 0 auto, 1 always, 2 never.
static COLOR: AtomicU8 = AtomicU8::new(0);

/// `--color`, for the whole process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour on a terminal, unless `NO_COLOR` is set.
    #[default]
    Auto,
    Always,
    Never,
}

/// Sets `--color` for every later colour decision.
pub fn set_color(choice: ColorChoice) {
    let n = match choice {
        ColorChoice::Auto => 0,
        ColorChoice::Always => 1,
        ColorChoice::Never => 2,
    };
    COLOR.store(n, Ordering::Relaxed);
}

fn color_choice() -> ColorChoice {
    match COLOR.load(Ordering::Relaxed) {
        1 => ColorChoice::Always,
        2 => ColorChoice::Never,
        _ => ColorChoice::Auto,
    }
}

/// Whether to colour a stream: `choice`, else a terminal without `NO_COLOR` (set and not
/// empty).
pub fn use_color(choice: ColorChoice, terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && no_color.is_none_or(|v| v.is_empty()),
    }
}

/// Whether what goes to stdout may be coloured.
pub fn color_stdout() -> bool {
    use_color(
        color_choice(),
        std::io::stdout().is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
    )
}

/// Whether what goes to stderr (the progress bar) may be coloured.
pub fn color_stderr() -> bool {
    use_color(
        color_choice(),
        std::io::stderr().is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
    )
}

/// Writes to stdout (flushed); drops the text once stdout has failed.
pub fn stdout(args: fmt::Arguments<'_>) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let text = args.to_string();
    let text = mcpspec_core::redact::text(&text);
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            stderr(format_args!(
                "mcpspec: cannot write to stdout ({e}); output dropped\n"
            ));
        }
    }
}

/// Writes to stderr, ignoring failures.
pub fn stderr(args: fmt::Arguments<'_>) {
    let text = args.to_string();
    let _ = std::io::stderr()
        .lock()
        .write_all(mcpspec_core::redact::text(&text).as_bytes());
}

/// `print!` to stdout, quiet once stdout is closed.
#[macro_export]
#[doc(hidden)]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::stdout(format_args!($($arg)*))
    };
}

/// `println!` to stdout, quiet once stdout is closed.
#[macro_export]
#[doc(hidden)]
macro_rules! outln {
    () => {
        $crate::output::stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprintln!` that ignores a failed write instead of panicking.
#[macro_export]
#[doc(hidden)]
macro_rules! errln {
    () => {
        $crate::output::stderr(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

// `#[macro_export]` puts the macros at the crate root; they are named here, by their module.
pub use crate::{errln, out, outln};

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn color_flag_wins_auto_needs_a_terminal_without_no_color() {
        let set = Some(OsStr::new("1"));
        let empty = Some(OsStr::new(""));
        assert!(use_color(ColorChoice::Auto, true, None));
        assert!(use_color(ColorChoice::Auto, true, empty));
        assert!(!use_color(ColorChoice::Auto, true, set));
        assert!(!use_color(ColorChoice::Auto, false, None));
        assert!(use_color(ColorChoice::Always, false, set));
        assert!(!use_color(ColorChoice::Never, true, None));
    }
}
