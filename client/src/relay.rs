//! `mcpspec client peer ADDR TOKEN`: the stdio peer as a client starts it. It connects to the
//! running `mcpspec client` at ADDR (loopback), names the token, and copies its stdin to the
//! connection and the connection to its stdout, byte for byte, until either side ends. The
//! scenario, its recording and its judging all stay in the running mcpspec.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// How long the relay tries to reach mcpspec.
const CONNECT_WAIT: Duration = Duration::from_secs(5);

/// The argument that starts the relay, after the mcpspec program: `client peer ADDR TOKEN`.
pub fn arguments(addr: SocketAddr, token: &str) -> [String; 4] {
    [
        "client".into(),
        "peer".into(),
        addr.to_string(),
        token.to_owned(),
    ]
}

/// Relays stdio to `addr` until the connection or stdin ends.
pub async fn relay(addr: SocketAddr, token: &str) -> std::io::Result<()> {
    let socket = tokio::time::timeout(CONNECT_WAIT, TcpStream::connect(addr))
        .await
        .map_err(|_| {
            std::io::Error::new(std::io::ErrorKind::TimedOut, "mcpspec did not answer")
        })??;
    let _ = socket.set_nodelay(true);
    let (mut from_mcpspec, mut to_mcpspec) = socket.into_split();
    to_mcpspec
        .write_all(format!("{token}\n").as_bytes())
        .await?;
    let up = async move {
        let mut stdin = tokio::io::stdin();
        let _ = tokio::io::copy(&mut stdin, &mut to_mcpspec).await;
        let _ = to_mcpspec.shutdown().await;
        // The client closed our stdin; what mcpspec still sends is copied until it ends.
        std::future::pending::<()>().await;
    };
    let down = async move {
        let mut stdout = tokio::io::stdout();
        let copied = tokio::io::copy(&mut from_mcpspec, &mut stdout).await;
        let _ = stdout.flush().await;
        copied.map(|_| ())
    };
    tokio::select! {
        done = down => done,
        () = up => Ok(()),
    }
}
