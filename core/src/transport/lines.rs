//! A bounded line reader: no line may grow past the limit, every read has a deadline.

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::time::Instant;

/// What one read of a line stream produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineEvent {
    /// One line, without its terminator.
    Line(Vec<u8>),
    /// The peer closed its output (EOF).
    Closed,
    /// Nothing arrived before the deadline.
    TimedOut,
    /// A line exceeded the bound; its first bytes are kept in `head` (see [`super::Recv`]).
    Overflow { limit: usize, head: Vec<u8> },
}

impl From<LineEvent> for super::Recv {
    fn from(event: LineEvent) -> Self {
        match event {
            LineEvent::Line(line) => super::Recv::Line(line),
            LineEvent::Closed => super::Recv::Closed,
            LineEvent::TimedOut => super::Recv::TimedOut,
            LineEvent::Overflow { limit, head } => super::Recv::Overflow { limit, head },
        }
    }
}

/// Splits a byte stream into lines without ever buffering more than `limit` bytes of one line.
pub struct LineReader {
    inner: Box<dyn AsyncRead + Send + Unpin>,
    buf: Vec<u8>,
    /// Bytes read past the last returned line.
    start: usize,
    limit: usize,
    /// Set while discarding the rest of an oversized line.
    discarding: bool,
    eof: bool,
}

impl std::fmt::Debug for LineReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineReader")
            .field("buffered", &(self.buf.len() - self.start))
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

const CHUNK: usize = 64 * 1024;

impl LineReader {
    pub fn new(inner: Box<dyn AsyncRead + Send + Unpin>, limit: usize) -> Self {
        Self {
            inner,
            buf: Vec::new(),
            start: 0,
            limit,
            discarding: false,
            eof: false,
        }
    }

    /// The next line or event, waiting at most until `deadline`. Cancel-safe: dropped before
    /// it completes, it loses no byte.
    pub async fn next_line(&mut self, deadline: Instant) -> LineEvent {
        loop {
            if Instant::now() >= deadline {
                return LineEvent::TimedOut;
            }
            if let Some(event) = self.take_buffered() {
                return event;
            }
            if self.eof {
                // A final unterminated line still counts as a line.
                if self.start < self.buf.len() && !self.discarding {
                    let line = self.buf[self.start..].to_vec();
                    self.buf.clear();
                    self.start = 0;
                    return LineEvent::Line(line);
                }
                return LineEvent::Closed;
            }
            self.compact();
            self.buf.reserve(CHUNK);
            // `read_buf` appends to the spare capacity only: a read cancelled at this await (a
            // `select!` whose other branch won) leaves the buffer as it was.
            let read = tokio::time::timeout_at(deadline, self.inner.read_buf(&mut self.buf));
            match read.await {
                Err(_) => return LineEvent::TimedOut,
                Ok(Ok(0)) | Ok(Err(_)) => self.eof = true,
                Ok(Ok(_)) => {}
            }
        }
    }

    /// Returns a complete line or an overflow event from the buffer, if there is one.
    fn take_buffered(&mut self) -> Option<LineEvent> {
        let pending = &self.buf[self.start..];
        match pending.iter().position(|&b| b == b'\n') {
            Some(i) => {
                let line = self.split_line(i);
                if std::mem::take(&mut self.discarding) {
                    // The tail of an oversized line: already reported.
                    return self.take_buffered();
                }
                if line.len() > self.limit {
                    return Some(self.overflow(&line));
                }
                Some(LineEvent::Line(line))
            }
            None if pending.len() > self.limit => {
                // Drop what we have and skip until the next newline.
                let event = (!self.discarding).then(|| self.overflow(pending));
                self.start = self.buf.len();
                self.discarding = true;
                event
            }
            None => None,
        }
    }

    /// Takes the `len` bytes at `start` (and their newline) out of the buffer. A large line at
    /// the front is moved out without a copy, and the buffer gives back its capacity, so a
    /// message at the bound is held once, not twice.
    fn split_line(&mut self, len: usize) -> Vec<u8> {
        if self.start == 0 && len >= CHUNK {
            let rest = self.buf.split_off(len + 1);
            let mut line = std::mem::replace(&mut self.buf, rest);
            line.truncate(len);
            return line;
        }
        let line = self.buf[self.start..self.start + len].to_vec();
        self.start += len + 1;
        line
    }

    fn overflow(&self, line: &[u8]) -> LineEvent {
        LineEvent::Overflow {
            limit: self.limit,
            head: line[..line.len().min(crate::wire::OVERSIZED_HEAD.min(self.limit))].to_vec(),
        }
    }

    fn compact(&mut self) {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        // Give back what a large line (or an overflow) left behind.
        if self.buf.capacity() > 4 * CHUNK && self.buf.len() < CHUNK {
            self.buf.shrink_to(2 * CHUNK);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tokio::io::AsyncWriteExt;

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(2)
    }

    #[tokio::test]
    async fn splits_lines_and_reports_close() {
        let (mut w, r) = tokio::io::duplex(1024);
        let mut lines = LineReader::new(Box::new(r), 100);
        w.write_all(b"a\nbb\r\nccc").await.unwrap();
        drop(w);
        assert_eq!(
            lines.next_line(soon()).await,
            LineEvent::Line(b"a".to_vec())
        );
        assert_eq!(
            lines.next_line(soon()).await,
            LineEvent::Line(b"bb\r".to_vec())
        );
        assert_eq!(
            lines.next_line(soon()).await,
            LineEvent::Line(b"ccc".to_vec())
        );
        assert_eq!(lines.next_line(soon()).await, LineEvent::Closed);
    }

    #[tokio::test]
    async fn times_out_without_data() {
        let (_w, r) = tokio::io::duplex(1024);
        let mut lines = LineReader::new(Box::new(r), 100);
        let deadline = Instant::now() + Duration::from_millis(20);
        assert_eq!(lines.next_line(deadline).await, LineEvent::TimedOut);
    }

    #[tokio::test]
    async fn bounds_an_endless_line() {
        let (mut w, r) = tokio::io::duplex(1 << 20);
        let mut lines = LineReader::new(Box::new(r), 1000);
        tokio::spawn(async move {
            let junk = vec![b'x'; 10_000];
            for _ in 0..100 {
                if w.write_all(&junk).await.is_err() {
                    return;
                }
            }
            let _ = w.write_all(b"\n{}\n").await;
        });
        assert_eq!(
            lines.next_line(soon()).await,
            LineEvent::Overflow {
                limit: 1000,
                head: vec![b'x'; 1000]
            }
        );
        assert_eq!(
            lines.next_line(soon()).await,
            LineEvent::Line(b"{}".to_vec())
        );
        assert!(lines.buf.capacity() < 1000 + 2 * CHUNK);
    }

    #[tokio::test]
    async fn a_flood_cannot_stretch_a_deadline() {
        let (mut w, r) = tokio::io::duplex(1 << 16);
        let mut lines = LineReader::new(Box::new(r), 1000);
        tokio::spawn(async move { while w.write_all(b"{}\n").await.is_ok() {} });
        let deadline = Instant::now() + Duration::from_millis(50);
        let mut n = 0u64;
        while lines.next_line(deadline).await != LineEvent::TimedOut {
            n += 1;
        }
        assert!(n > 0);
        assert!(Instant::now() < deadline + Duration::from_millis(500));
    }
}
