//! What every handler of the command line shares: the exit codes, the usage-error line, and the
//! report flags with how a rendered report is written. Below every handler, so that `cli.rs`
//! only parses and dispatches.

use mcpspec_harness::cli_values::Destination;
use mcpspec_harness::output::errln;
use mcpspec_harness::report::Format;

/// Exit codes (docs/outcomes.md "Exit codes").
pub mod exit {
    pub const OK: u8 = 0;
    pub const FAILED: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const TARGET: u8 = 3;
    /// Interrupted (Ctrl-C): 128 + SIGINT, as a shell reports it.
    pub const INTERRUPTED: u8 = 130;
}

/// Writes a rendered report to `destination`: a file holds it as rendered; on stdout it ends
/// its line.
pub fn write_rendered(destination: &Destination, mut text: String) -> Result<(), String> {
    if destination.is_stdout() && !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    destination.write(&text)
}

/// Prints `mcpspec: <message>` to stderr; the exit code of a usage error.
pub fn usage_error(message: impl std::fmt::Display) -> u8 {
    errln!("mcpspec: {message}");
    exit::USAGE
}

/// The report files `run` writes and `report` writes again from a JSON report: the same flags
/// with the same meaning in both.
#[derive(clap::Args, Debug, Default)]
pub struct ReportFiles {
    /// Write the report as JSON to FILE (`-` for stdout, in place of the console report).
    #[arg(long, value_name = "FILE", value_parser = Destination::parse)]
    pub json: Option<Destination>,
    /// Write the report as JUnit XML to FILE (`-` for stdout, in place of the console report).
    #[arg(long, value_name = "FILE", value_parser = Destination::parse)]
    pub junit: Option<Destination>,
    /// Write a Markdown summary (for a CI step summary) to FILE (`-` for stdout, in place of
    /// the console report).
    #[arg(long, value_name = "FILE", value_parser = Destination::parse)]
    pub markdown: Option<Destination>,
    /// Write a self-contained HTML report (summary, negotiation matrix, every check with its
    /// requirement and its transcript as a conversation) to FILE (`-` for stdout, in place of
    /// the console report).
    #[arg(long, value_name = "FILE", value_parser = Destination::parse)]
    pub html: Option<Destination>,
}

impl ReportFiles {
    /// Where `format` goes, if it was asked for.
    pub fn destination(&self, format: Format) -> Option<&Destination> {
        match format {
            Format::Json => self.json.as_ref(),
            Format::Junit => self.junit.as_ref(),
            Format::Markdown => self.markdown.as_ref(),
            Format::Html => self.html.as_ref(),
        }
    }

    /// Each flag with its destination, as [`mcpspec_harness::cli_values::one_on_stdout`] reads them.
    pub fn flags(&self) -> [(&'static str, Option<&Destination>); 4] {
        Format::ALL.map(|f| (f.flag(), self.destination(f)))
    }

    /// Whether one of them writes to stdout (in place of the console report).
    pub fn any_on_stdout(&self) -> bool {
        self.flags()
            .iter()
            .any(|(_, d)| d.is_some_and(Destination::is_stdout))
    }
}
