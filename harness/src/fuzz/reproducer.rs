//! Reproducers: the exact lines of a minimal failing case, one per line (JSONL when every line
//! is JSON; a mutated line is kept byte for byte), so `server < finding.jsonl` feeds the server
//! the same input. A sidecar `.txt` holds the human summary.

use std::io;
use std::path::{Path, PathBuf};

use super::Finding;

/// Writes `finding` into `dir` as `finding-N-<oracle>.jsonl` (+ `.txt`); returns the path.
pub fn write(dir: &Path, n: usize, finding: &Finding) -> io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!(
        "finding-{n}-{}.jsonl",
        finding.violation.oracle.id()
    ));
    let mut bytes = Vec::new();
    for line in &finding.case {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    std::fs::write(&path, bytes)?;
    std::fs::write(path.with_extension("txt"), finding.summary() + "\n")?;
    Ok(path)
}

/// Reads a reproducer: its lines, without terminators (a trailing `\r` is kept: it was sent).
pub fn read(path: &Path) -> io::Result<Vec<Vec<u8>>> {
    let bytes = std::fs::read(path)?;
    Ok(split_lines(&bytes))
}

/// Splits bytes into lines; a final line without a newline counts, an empty tail does not.
pub fn split_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut lines: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        lines.pop();
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_the_transport() {
        assert_eq!(split_lines(b""), Vec::<Vec<u8>>::new());
        assert_eq!(split_lines(b"a\n"), vec![b"a".to_vec()]);
        assert_eq!(
            split_lines(b"a\n\nb"),
            vec![b"a".to_vec(), vec![], b"b".to_vec()]
        );
    }
}
