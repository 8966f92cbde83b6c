//! What was written to one server process, in order, and who wrote it: the history a verdict
//! on a shared process may depend on (POL-30). The pool marks who writes next (a check, its
//! liveness request); the transport appends every write. Bounded: past [`MAX_BYTES`] or
//! [`MAX_WRITES`] the oldest writes are dropped and counted, and the log is no longer complete.

/// The most bytes a log keeps.
pub const MAX_BYTES: usize = 1024 * 1024;
/// The most writes a log keeps.
pub const MAX_WRITES: usize = 4096;

/// The writes of one writer, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// Who wrote them: a check id, or the pool's own request ("liveness", "qualification").
    pub by: String,
    /// Each write's bytes, as written (newline included).
    pub writes: Vec<Vec<u8>>,
}

/// Every write to one process since the pool began keeping them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SentLog {
    chunks: Vec<Sent>,
    bytes: usize,
    writes: usize,
    /// Writes dropped from the front to keep the bound.
    dropped: u64,
}

impl SentLog {
    /// Later writes are `by`'s.
    pub fn mark(&mut self, by: impl Into<String>) {
        let by = by.into();
        match self.chunks.last_mut() {
            Some(last) if last.writes.is_empty() => last.by = by,
            _ => self.chunks.push(Sent {
                by,
                writes: Vec::new(),
            }),
        }
    }

    /// Appends one write (to the last writer), dropping the oldest past the bounds.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.chunks.is_empty() {
            self.mark("unknown");
        }
        if let Some(last) = self.chunks.last_mut() {
            last.writes.push(bytes.to_vec());
        }
        self.bytes += bytes.len();
        self.writes += 1;
        while (self.bytes > MAX_BYTES || self.writes > MAX_WRITES) && self.writes > 1 {
            let Some(first) = self.chunks.first_mut() else {
                break;
            };
            if first.writes.is_empty() {
                self.chunks.remove(0);
                continue;
            }
            let gone = first.writes.remove(0);
            self.bytes -= gone.len();
            self.writes -= 1;
            self.dropped += 1;
        }
    }

    /// The writers' chunks, oldest first (empty ones left out).
    pub fn chunks(&self) -> impl Iterator<Item = &Sent> {
        self.chunks.iter().filter(|c| !c.writes.is_empty())
    }

    /// The log without `by`'s writes (a session's handshake, which a fresh session makes
    /// again on its own).
    pub fn without(&self, by: &str) -> SentLog {
        let mut log = SentLog {
            dropped: self.dropped,
            ..SentLog::default()
        };
        for chunk in self.chunks().filter(|c| c.by != by) {
            log.mark(chunk.by.clone());
            for w in &chunk.writes {
                log.push(w);
            }
        }
        log
    }

    /// Every write, oldest first.
    pub fn writes(&self) -> Vec<Vec<u8>> {
        self.chunks()
            .flat_map(|c| c.writes.iter().cloned())
            .collect()
    }

    /// Whether the log holds every write since it began (none dropped).
    pub fn complete(&self) -> bool {
        self.dropped == 0
    }

    pub fn is_empty(&self) -> bool {
        self.writes == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_are_kept_in_order_under_their_writer() {
        let mut log = SentLog::default();
        log.mark("a");
        log.push(b"1\n");
        log.mark("b");
        log.mark("c");
        log.push(b"2\n");
        log.push(b"3\n");
        let chunks: Vec<(&str, usize)> = log
            .chunks()
            .map(|c| (c.by.as_str(), c.writes.len()))
            .collect();
        assert_eq!(chunks, [("a", 1), ("c", 2)]);
        assert_eq!(
            log.writes(),
            [b"1\n".to_vec(), b"2\n".to_vec(), b"3\n".to_vec()]
        );
        assert!(log.complete());
    }

    #[test]
    fn the_oldest_writes_go_past_the_bound_and_the_log_says_so() {
        let mut log = SentLog::default();
        log.mark("a");
        for i in 0..MAX_WRITES + 3 {
            log.push(format!("{i}\n").as_bytes());
        }
        assert_eq!(log.writes().len(), MAX_WRITES);
        assert_eq!(log.writes()[0], b"3\n".to_vec());
        assert!(!log.complete());
    }
}
