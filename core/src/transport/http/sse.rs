//! An incremental Server-Sent Events parser (the `text/event-stream` format).
//!
//! Bytes go in as they arrive, complete events come out. Lines end in `\n`, `\r\n` or `\r`;
//! `data:` lines of one event are joined with `\n`; an empty line dispatches the event;
//! comment lines (`:`) are ignored. The buffer is bounded: a line past the limit is an error.

/// One dispatched event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field (absent means "message").
    pub event: Option<String>,
    pub data: String,
    /// The `id:` field, as sent.
    pub id: Option<String>,
}

/// The stream broke the format or the bound.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    #[error("an event-stream line longer than {0} bytes")]
    LineTooLong(usize),
    #[error("an event-stream line that is not UTF-8")]
    NotUtf8,
}

/// The parser state.
#[derive(Debug, Clone)]
pub struct SseParser {
    line: Vec<u8>,
    /// The previous byte was `\r` (a following `\n` belongs to the same line end).
    after_cr: bool,
    current: SseEvent,
    has_data: bool,
    limit: usize,
}

impl SseParser {
    pub fn new(limit: usize) -> Self {
        SseParser {
            line: Vec::new(),
            after_cr: false,
            current: SseEvent::default(),
            has_data: false,
            limit,
        }
    }

    /// Feeds bytes; returns the events completed by them.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        let mut out = Vec::new();
        for &b in bytes {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if let Some(event) = self.line_done(&line)? {
                        out.push(event);
                    }
                }
                _ => {
                    if self.line.len() >= self.limit {
                        return Err(SseError::LineTooLong(self.limit));
                    }
                    self.line.push(b);
                }
            }
        }
        Ok(out)
    }

    fn line_done(&mut self, line: &[u8]) -> Result<Option<SseEvent>, SseError> {
        if line.is_empty() {
            if !self.has_data {
                self.current = SseEvent::default();
                return Ok(None);
            }
            self.has_data = false;
            return Ok(Some(std::mem::take(&mut self.current)));
        }
        let text = std::str::from_utf8(line).map_err(|_| SseError::NotUtf8)?;
        if text.starts_with(':') {
            return Ok(None);
        }
        let (field, value) = match text.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (text, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.current.data.push('\n');
                }
                self.current.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.current.event = Some(value.to_owned()),
            "id" if !value.contains('\0') => self.current.id = Some(value.to_owned()),
            _ => {}
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_events_across_chunks_and_line_ends() {
        let mut p = SseParser::new(1024);
        let mut events = p.feed(b"event: message\nid: 1\ndata: {\"a\"").unwrap();
        assert!(events.is_empty());
        events.extend(
            p.feed(b":1}\r\n\r\n: comment\rdata: x\rdata: y\r\r\n")
                .unwrap(),
        );
        assert_eq!(
            events,
            vec![
                SseEvent {
                    event: Some("message".into()),
                    data: "{\"a\":1}".into(),
                    id: Some("1".into())
                },
                SseEvent {
                    event: None,
                    data: "x\ny".into(),
                    id: None
                },
            ]
        );
    }

    #[test]
    fn an_event_without_data_is_not_dispatched() {
        let mut p = SseParser::new(1024);
        assert!(p.feed(b"id: 5\n\nretry: 10\n\n").unwrap().is_empty());
    }

    #[test]
    fn bounds_a_line() {
        let mut p = SseParser::new(8);
        assert_eq!(p.feed(b"data: 0123456789\n"), Err(SseError::LineTooLong(8)));
    }
}
