//! The seed corpus built into the binary: `fixtures/fuzz/seeds` and `fixtures/fuzz/regressions`
//! as they were at build time, so `mcpspec fuzz` starts from the same seeds wherever it runs
//! (`--seeds` adds more). A test checks this list against the folders.

/// One built-in seed file: its path under `fixtures/fuzz/` and its text.
macro_rules! seed {
    ($path:literal) => {
        (
            $path,
            include_str!(concat!("../../../fixtures/fuzz/", $path)),
        )
    };
}

/// Every built-in seed file, `(path under fixtures/fuzz/, text)`.
pub const FILES: &[(&str, &str)] = &[
    seed!("seeds/client-response-unsolicited.jsonl"),
    seed!("seeds/jsonrpc-version-1.0.jsonl"),
    seed!("seeds/legacy-batch-2025-03-26.jsonl"),
    seed!("seeds/legacy-handshake-2025-06-18.jsonl"),
    seed!("seeds/modern-discover.jsonl"),
    seed!("seeds/modern-tools-call-add.jsonl"),
    seed!("seeds/modern-tools-call-echo.jsonl"),
    seed!("seeds/modern-tools-list-cursor.jsonl"),
    seed!("seeds/modern-unsupported-version.jsonl"),
    seed!("seeds/notification-cancelled-unknown-request.jsonl"),
    seed!("seeds/notification-unknown.jsonl"),
    seed!("seeds/params-not-structured.jsonl"),
    seed!("seeds/parse-error-truncated.jsonl"),
    seed!("seeds/request-id-null.jsonl"),
    seed!("regressions/client-error-response-id-null.jsonl"),
    seed!("regressions/id-null-request-after-error-response.jsonl"),
];

/// The built-in seed lines (one message per line, empty lines left out).
pub fn lines() -> Vec<Vec<u8>> {
    FILES
        .iter()
        .flat_map(|(_, text)| text.lines())
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.as_bytes().to_vec())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seed added to the folders but not to [`FILES`] (or the other way round) fails here.
    #[test]
    fn the_built_in_list_is_the_folders() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/fuzz");
        let mut on_disk = Vec::new();
        for dir in ["seeds", "regressions"] {
            for entry in std::fs::read_dir(root.join(dir))
                .into_iter()
                .flatten()
                .flatten()
            {
                on_disk.push(format!("{dir}/{}", entry.file_name().to_string_lossy()));
            }
        }
        on_disk.sort();
        let mut built_in: Vec<String> = FILES.iter().map(|(p, _)| (*p).to_owned()).collect();
        built_in.sort();
        assert_eq!(built_in, on_disk);
        assert!(lines().len() >= FILES.len());
    }
}
