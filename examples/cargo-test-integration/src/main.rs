//! `example-server`: the server under test of this example, an MCP server over stdio. It is the
//! reference server with one known deviation, as a real server might have: its parse-error
//! reply carries `"id": 0` instead of null (the fault `parse-error-id-zero`), listed with its
//! reason in `tests/conformance-baseline.yaml`. `EXAMPLE_SERVER_FIXED=1` fixes it (the entry
//! then goes stale), and `EXAMPLE_SERVER_FAULTS` (comma-separated fault names) switches more
//! faults on, so the harness's own tests can show what fails.

use std::process::ExitCode;

use mcp_reference_server::{Config, Fault};

fn main() -> ExitCode {
    let mut config = Config::default();
    let mut names = std::env::var("EXAMPLE_SERVER_FAULTS").unwrap_or_default();
    if std::env::var_os("EXAMPLE_SERVER_FIXED").is_none() {
        names.push_str(",parse-error-id-zero");
    }
    for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match name.parse::<Fault>() {
            Ok(fault) => config.faults = std::mem::take(&mut config.faults).with(fault),
            Err(e) => {
                eprintln!("example-server: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("example-server: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(mcp_reference_server::serve_stream(
        config,
        tokio::io::stdin(),
        tokio::io::stdout(),
    )) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("example-server: {e}");
            ExitCode::from(1)
        }
    }
}
