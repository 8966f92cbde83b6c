//! What the command line prints, written so that a closed pipe is no panic.
//!
//! Rust ignores SIGPIPE, so writing to a pipe whose reader has gone (`mcpspec list | head -1`)
//! returns an EPIPE error, on which `println!` panics. Every line mcpspec prints goes through
//! [`outln!`](crate::outln) / [`out!`](crate::out) instead: the first failed write marks stdout
//! closed and later output is dropped, while the program carries on to its own exit code (a
//! report still goes to the files it was asked for). A failure other than a closed pipe (a
//! full disk, say) is said once on stderr. [`errln!`](crate::errln) / [`err!`](crate::err)
//! write stderr and ignore failures: there is nowhere left to report them.

use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes to stdout (flushed); drops the text once stdout has failed.
pub fn stdout(args: fmt::Arguments<'_>) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            stderr(format_args!(
                "mcpspec: cannot write to stdout ({e}); output dropped\n"
            ));
        }
    }
}

/// Whether a write to stdout has failed (its reader has gone).
pub fn stdout_closed() -> bool {
    STDOUT_CLOSED.load(Ordering::Relaxed)
}

/// Writes to stderr, ignoring failures.
pub fn stderr(args: fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

/// `print!` to stdout, quiet once stdout is closed.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::stdout(format_args!($($arg)*))
    };
}

/// `println!` to stdout, quiet once stdout is closed.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::output::stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` that ignores a failed write instead of panicking.
#[macro_export]
macro_rules! err {
    ($($arg:tt)*) => {
        $crate::output::stderr(format_args!($($arg)*))
    };
}

/// `eprintln!` that ignores a failed write instead of panicking.
#[macro_export]
macro_rules! errln {
    () => {
        $crate::output::stderr(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}
