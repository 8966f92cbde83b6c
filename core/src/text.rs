//! Short texts for verdicts, transcripts and errors: a value's first bytes, a string cut at a
//! character boundary, a duration in seconds. A leaf: it imports nothing of the crate, so every
//! layer (transport, transcript, driver, checks) can use it.

use std::time::Duration;

use serde_json::Value;

pub fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// A value's compact JSON, cut after `max` bytes like [`shorten`], without serializing the rest
/// (a result at the message bound is not copied whole to quote its first line).
pub fn preview(value: &Value, max: usize) -> String {
    struct Capped(Vec<u8>, usize);
    impl std::io::Write for Capped {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let room = self.1.saturating_sub(self.0.len());
            if room == 0 {
                return Err(std::io::Error::other("full"));
            }
            let n = buf.len().min(room);
            self.0.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // One byte past `max` tells `shorten` the text was cut.
    let mut out = Capped(Vec::new(), max.saturating_add(4));
    let _ = serde_json::to_writer(&mut out, value);
    shorten(&String::from_utf8_lossy(&out.0), max)
}

pub fn shorten(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}
