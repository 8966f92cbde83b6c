//! `mcpspec matrix FILE --plan github`: the matrix as a GitHub Actions job matrix, one job per
//! target (`docs/matrix-file.md`). A workflow reads it with `fromJSON` as `strategy.matrix`;
//! each job runs `mcpspec matrix FILE --only <target> --out matrix-out` and uploads its
//! `matrix-out/<target>/`, and a last job downloads them all into `matrix-out/` and runs
//! `mcpspec matrix merge matrix-out/*/report.json --out matrix-out`.

use serde::Serialize;

use super::file::MatrixFile;

/// One job of the plan: what `${{ matrix.* }}` holds in it.
#[derive(Debug, Serialize)]
struct Job<'a> {
    /// The target's name: `--only`'s value, and the folder `matrix-out/<target>/`.
    target: &'a str,
    role: &'a str,
    /// The target's label, or its name: for the job's name.
    label: &'a str,
    /// The matrix file, as the plan was asked for it.
    file: &'a str,
    /// The revisions the job runs, newest first, separated by spaces.
    revisions: String,
    /// The job's command, quoted for a POSIX shell.
    command: String,
}

#[derive(Debug, Serialize)]
struct Plan<'a> {
    include: Vec<Job<'a>>,
}

/// The plan: one line of JSON, `{"include":[{"target":…,"role":…,"label":…,…},…]}`, in the
/// file's order. `file_arg` is the matrix file as the command line named it, so that each
/// job's `command` names it the same way.
pub fn plan(file: &MatrixFile, file_arg: &str) -> String {
    let include = file
        .targets
        .iter()
        .map(|t| Job {
            target: &t.name,
            role: t.role.as_str(),
            label: t.label.as_deref().unwrap_or(&t.name),
            file: file_arg,
            revisions: t.revisions.join(" "),
            command: format!(
                "mcpspec matrix {} --only {} --out matrix-out",
                shell_quote(file_arg),
                shell_quote(&t.name)
            ),
        })
        .collect();
    // Serializing strings and lists of them cannot fail.
    serde_json::to_string(&Plan { include }).unwrap_or_default()
}

/// `s` as one word of a POSIX shell: as it is when it holds nothing special, else in single
/// quotes.
fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@+,".contains(c));
    if plain {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::matrix::file::parse;
    use std::path::Path;

    const FILE: &str = "\
revisions: [2026-07-28, 2025-11-25]
targets:
  - name: python-stdio
    label: \"mcp 2.3.0 (stdio)\"
    role: server
    command: [python, server.py]
  - name: ts-client
    role: client
    command: [node, client.js]
    revisions: [2025-11-25]
";

    #[test]
    fn the_plan_is_one_job_per_target_in_one_line_of_json() {
        let file = parse(Path::new("ci/matrix.yaml"), FILE, &|_| None).unwrap();
        let plan = plan(&file, "ci/matrix.yaml");
        assert!(!plan.contains('\n'), "{plan}");
        assert_eq!(
            plan,
            concat!(
                r#"{"include":["#,
                r#"{"target":"python-stdio","role":"server","label":"mcp 2.3.0 (stdio)","#,
                r#""file":"ci/matrix.yaml","revisions":"2026-07-28 2025-11-25","#,
                r#""command":"mcpspec matrix ci/matrix.yaml --only python-stdio --out matrix-out"},"#,
                r#"{"target":"ts-client","role":"client","label":"ts-client","#,
                r#""file":"ci/matrix.yaml","revisions":"2025-11-25","#,
                r#""command":"mcpspec matrix ci/matrix.yaml --only ts-client --out matrix-out"}"#,
                r#"]}"#
            )
        );
        let value: serde_json::Value = serde_json::from_str(&plan).unwrap();
        assert_eq!(value["include"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn a_file_name_with_spaces_or_quotes_is_quoted_in_the_command() {
        let file = parse(Path::new("m.yaml"), FILE, &|_| None).unwrap();
        let plan: serde_json::Value =
            serde_json::from_str(&plan(&file, "my dir/it's.yaml")).unwrap();
        assert_eq!(
            plan["include"][0]["command"],
            r#"mcpspec matrix 'my dir/it'\''s.yaml' --only python-stdio --out matrix-out"#
        );
        assert_eq!(plan["include"][0]["file"], "my dir/it's.yaml");
    }
}
