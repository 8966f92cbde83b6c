//! The two ways to serve one input, on one current-thread runtime per thread, bounded by
//! [`SERVE_LIMIT`] (see the parent module's doc).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::task::Poll;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::config::Config;

/// The wall-time bound on one serve: a stall past it is a finding.
pub const SERVE_LIMIT: Duration = Duration::from_secs(5);

/// What one in-memory serve produced.
#[derive(Debug, Clone, Default)]
pub struct Served {
    /// Everything the server wrote.
    pub output: Vec<u8>,
    /// The panic message, if the server panicked.
    pub panicked: Option<String>,
    /// The server neither finished nor closed its output within the bound.
    pub stalled: bool,
}

thread_local! {
    /// This thread's runtime: current-thread, time driver only, built on first use.
    static RUNTIME: std::io::Result<tokio::runtime::Runtime> =
        tokio::runtime::Builder::new_current_thread().enable_time().build();
}

/// Runs `future` to completion on this thread's runtime (see the module doc).
pub(super) fn block_on<F: Future>(future: F) -> std::io::Result<F::Output> {
    RUNTIME.with(|runtime| match runtime {
        Ok(runtime) => Ok(runtime.block_on(future)),
        Err(e) => Err(std::io::Error::new(e.kind(), e.to_string())),
    })
}

/// `future`'s output, or the message of the panic that ended it.
pub(super) async fn catch_panic<F: Future>(future: F) -> Result<F::Output, String> {
    let mut future = std::pin::pin!(future);
    std::future::poll_fn(move |cx| {
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(panic_text(payload))),
        }
    })
    .await
}

/// Serves `input` (then EOF) through the transport and returns everything written, bounded by
/// [`SERVE_LIMIT`]. A panic in the server is re-raised here.
pub fn serve_bytes(config: Config, input: &[u8]) -> std::io::Result<Vec<u8>> {
    let served = serve(config, input)?;
    if let Some(message) = served.panicked {
        panic!("the server panicked: {message}");
    }
    if served.stalled {
        return Err(std::io::Error::other("the server did not finish in 5 s"));
    }
    Ok(served.output)
}

/// Serves `input` (then EOF) through the stdio transport ([`crate::serve_stream`] on duplex
/// pipes) on this thread's runtime; never panics itself.
pub fn serve(config: Config, input: &[u8]) -> std::io::Result<Served> {
    block_on(async {
        let (mut client_w, server_r) = tokio::io::duplex(1 << 16);
        let (server_w, mut client_r) = tokio::io::duplex(1 << 16);
        let server = tokio::spawn(crate::serve_stream(config, server_r, server_w));
        let feed = async {
            // A server that died or stopped reading makes the write fail; the output still
            // tells what happened.
            let _ = client_w.write_all(input).await;
            let _ = client_w.shutdown().await;
        };
        let mut output = Vec::new();
        let collect = async {
            let _ = client_r.read_to_end(&mut output).await;
        };
        let stalled = tokio::time::timeout(SERVE_LIMIT, async { tokio::join!(feed, collect) })
            .await
            .is_err();
        server.abort();
        let panicked = match server.await {
            Err(e) if e.is_panic() => Some(panic_text(e.into_panic())),
            _ => None,
        };
        Served {
            output,
            panicked,
            stalled,
        }
    })
}

/// Serves `input` (then its end) without the byte stream: the transport's reader loop and
/// writer on lines cut in memory (see the module doc), on this thread's runtime, bounded by
/// [`SERVE_LIMIT`]; never panics itself.
pub fn serve_in_memory(config: Config, input: &[u8]) -> std::io::Result<Served> {
    block_on(async {
        let mut output = Vec::new();
        let serving = catch_panic(crate::Server::new(config).serve_memory(input, &mut output));
        // The server's own result (an exit or crash fault) shows in what it wrote.
        let ended = tokio::time::timeout(SERVE_LIMIT, serving).await;
        Served {
            panicked: ended.as_ref().ok().and_then(|r| r.as_ref().err().cloned()),
            stalled: ended.is_err(),
            output,
        }
    })
}

pub(super) fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(payload) => payload
            .downcast_ref::<&str>()
            .map_or_else(|| "(non-string panic payload)".into(), |s| (*s).to_owned()),
    }
}
