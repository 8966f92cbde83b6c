//! The matrix file (`docs/matrix-file.md`): which targets `mcpspec matrix` runs, how each is
//! started or reached, and at which revisions. [`load`] reads it and checks every rule before
//! anything is started; an error names the file, the line and the key ([`FileError`]).
//!
//! serde reads the shape (unknown keys, types, missing keys) and knows where it stopped; the
//! rules serde cannot see (a duplicate name, an unset variable, an unknown revision) are checked
//! afterwards, and their line is found by scanning the text ([`Scan`]): the line of the n-th
//! entry under `targets:`, and the key or value inside it.

use std::cmp::Reverse;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use mcpspec_core::protocol::version;
use mcpspec_harness::yaml;

use super::model::Role;

/// How long to wait, by default, for the URL of a target's `start` command to accept TCP
/// connections.
pub const DEFAULT_READY_TIMEOUT: Duration = Duration::from_secs(30);

/// The two ways a client target may reach the peer mcpspec plays.
pub const TRANSPORTS: [&str; 2] = ["http", "stdio"];

/// A matrix file, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixFile {
    /// The file as named on the command line.
    pub path: PathBuf,
    /// The file's directory (`.` for a bare file name): relative `cwd`s start here.
    pub dir: PathBuf,
    /// The revisions compared, newest first: the file's `revisions`, or every known one.
    pub revisions: Vec<String>,
    /// The targets, in the file's order.
    pub targets: Vec<TargetSpec>,
}

/// One entry of `targets:`, with every default filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetSpec {
    /// Unique in the file; `[A-Za-z0-9._-]+`, not starting with `.`.
    pub name: String,
    pub label: Option<String>,
    pub role: Role,
    /// A stdio server's command, or a client's command (the URL to connect to appended last).
    /// Empty for a server reached by `url`.
    pub command: Vec<String>,
    /// A command started before the target's runs and stopped after them (empty: none).
    pub start: Vec<String>,
    /// An HTTP server's URL (`http://…`).
    pub url: Option<String>,
    /// How long to wait for `url` to accept TCP connections after `start` (default 30 s).
    pub ready_timeout: Duration,
    /// `--allow-tool` names (a server's).
    pub allow_tools: Vec<String>,
    /// The name of the environment variable holding the bearer token (checked to be set).
    pub bearer_env: Option<String>,
    /// The revisions to run this target at, newest first: its own, or the file's.
    pub revisions: Vec<String>,
    /// A client's transport, `http` (the default) or `stdio`; `None` for a server.
    pub transport: Option<String>,
    /// Run the server's probe profile too (`--probe-profile`).
    pub probe_profile: bool,
    /// Where `command` and `start` run: `cwd` joined to the file's directory (default: the
    /// file's directory).
    pub cwd: PathBuf,
    /// The line of the target's entry (its `-`), 1-based.
    pub line: usize,
}

/// What is wrong with a matrix file, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    pub file: String,
    /// 1-based.
    pub line: Option<usize>,
    pub key: Option<String>,
    pub message: String,
}

impl fmt::Display for FileError {
    /// `FILE:LINE: `KEY`: MESSAGE`, leaving out the parts that are not known.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        f.write_str(": ")?;
        if let Some(key) = &self.key {
            write!(f, "`{key}`: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for FileError {}

/// Reads and checks the matrix file at `path`, with the process's environment for
/// `bearer_env`; a `cwd` must be a directory.
pub fn load(path: &Path) -> Result<MatrixFile, FileError> {
    let text = std::fs::read_to_string(path).map_err(|e| FileError {
        file: path.display().to_string(),
        line: None,
        key: None,
        message: format!("cannot read the matrix file: {e}"),
    })?;
    let env = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
    let file = parse(path, &text, &env)?;
    let scan = Scan::new(&text);
    for (i, target) in file.targets.iter().enumerate() {
        if !target.cwd.is_dir() {
            return Err(FileError {
                file: path.display().to_string(),
                line: Some(scan.key_line(i, "cwd")),
                key: Some("cwd".into()),
                message: format!("{} is not a directory", target.cwd.display()),
            });
        }
    }
    Ok(file)
}

/// Checks the matrix file `text`, read from `path`; `env` answers whether a `bearer_env`
/// variable is set. Touches no file.
pub fn parse(
    path: &Path,
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<MatrixFile, FileError> {
    let file = path.display().to_string();
    let scan = Scan::new(text);
    let raw: RawFile = yaml::from_str(text).map_err(|e| from_yaml(&file, &scan, &e))?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let check = Checker {
        file: &file,
        scan: &scan,
    };

    let revisions = match raw.revisions {
        None => version::ALL.iter().rev().map(|r| (*r).to_owned()).collect(),
        Some(list) => {
            let block = scan.top_block("revisions");
            check.revisions(&list, block, None)?;
            newest_first(list)
        }
    };

    let raw_targets = raw.targets.unwrap_or_default();
    if raw_targets.is_empty() {
        // At `targets:`, or at the top of the file when there is none.
        return Err(check.error(
            Some(scan.top_key("targets").map_or(1, |l| l + 1)),
            "targets",
            "no targets: list at least one (`name`, `role` and how to run it)",
        ));
    }

    let mut targets: Vec<TargetSpec> = Vec::with_capacity(raw_targets.len());
    for (i, raw) in raw_targets.into_iter().enumerate() {
        let target = check.target(i, raw, &revisions, &dir, env)?;
        if let Some(first) = targets.iter().find(|t| t.name == target.name) {
            return Err(check.error(
                Some(scan.key_line(i, "name")),
                "name",
                format!(
                    "`{}` is also the name of the target on line {}; names must be unique",
                    target.name, first.line
                ),
            ));
        }
        targets.push(target);
    }

    Ok(MatrixFile {
        path: path.to_path_buf(),
        dir,
        revisions,
        targets,
    })
}

/// The file as serde reads it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    revisions: Option<Vec<String>>,
    #[serde(default)]
    targets: Option<Vec<RawTarget>>,
}

/// A target as serde reads it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTarget {
    name: String,
    #[serde(default)]
    label: Option<String>,
    role: Role,
    #[serde(default)]
    command: Option<Vec<String>>,
    #[serde(default)]
    start: Option<Vec<String>>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    ready_timeout: Option<u64>,
    #[serde(default)]
    allow_tools: Option<Vec<String>>,
    #[serde(default)]
    bearer_env: Option<String>,
    #[serde(default)]
    revisions: Option<Vec<String>>,
    #[serde(default)]
    transport: Option<String>,
    #[serde(default)]
    probe_profile: Option<bool>,
    #[serde(default)]
    cwd: Option<String>,
}

/// Newest first, as the catalogue orders them (every entry is known by now).
fn newest_first(mut list: Vec<String>) -> Vec<String> {
    list.sort_by_key(|r| Reverse(version::ALL.iter().position(|k| k == r)));
    list
}

fn known_revisions() -> String {
    version::ALL
        .iter()
        .rev()
        .copied()
        .collect::<Vec<_>>()
        .join(", ")
}

/// The rules serde cannot check, each error at its line.
struct Checker<'a> {
    file: &'a str,
    scan: &'a Scan<'a>,
}

impl Checker<'_> {
    fn error(&self, line: Option<usize>, key: &str, message: impl Into<String>) -> FileError {
        FileError {
            file: self.file.to_owned(),
            line,
            key: Some(key.to_owned()),
            message: message.into(),
        }
    }

    /// An error at the line of `key` in target `i` (or the target's line).
    fn at(&self, i: usize, key: &str, message: impl Into<String>) -> FileError {
        self.error(Some(self.scan.key_line(i, key)), key, message)
    }

    /// A `revisions` list, the file's or a target's (then `within` the file's): not empty,
    /// every entry known, none twice; `block` is where it is written.
    fn revisions(
        &self,
        list: &[String],
        block: Option<Range<usize>>,
        within: Option<&[String]>,
    ) -> Result<(), FileError> {
        let key_line = block.as_ref().map(|b| b.start + 1);
        if list.is_empty() {
            let hint = match within {
                Some(_) => "leave `revisions` out to run this target at every revision of the file",
                None => "leave `revisions` out to compare every revision mcpspec knows",
            };
            return Err(self.error(key_line, "revisions", format!("the list is empty; {hint}")));
        }
        for (n, rev) in list.iter().enumerate() {
            let seen = list[..n].iter().filter(|r| *r == rev).count();
            let line = block
                .as_ref()
                .and_then(|b| self.scan.nth_value(b.clone(), rev, seen))
                .or(key_line);
            if !version::is_known(rev) {
                return Err(self.error(
                    line,
                    "revisions",
                    format!(
                        "`{rev}` is not a revision mcpspec knows (it knows {})",
                        known_revisions()
                    ),
                ));
            }
            if seen > 0 {
                return Err(self.error(line, "revisions", format!("`{rev}` is listed twice")));
            }
            if let Some(allowed) = within {
                if !allowed.contains(rev) {
                    return Err(self.error(
                        line,
                        "revisions",
                        format!(
                            "`{rev}` is not among the file's revisions ({}); a target's \
                             `revisions` picks some of those",
                            allowed.join(", ")
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    fn target(
        &self,
        i: usize,
        raw: RawTarget,
        file_revisions: &[String],
        dir: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<TargetSpec, FileError> {
        let name = raw.name;
        if name.is_empty() {
            return Err(self.at(i, "name", "the name is empty"));
        }
        if let Some(bad) = name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        {
            return Err(self.at(
                i,
                "name",
                format!(
                    "`{name}` has {bad:?}: a name is letters, digits, `.`, `_` and `-` (it names \
                     files and columns)"
                ),
            ));
        }
        if name.starts_with('.') {
            return Err(self.at(i, "name", format!("`{name}` starts with `.`")));
        }
        // The name is a folder beside the pages: it may not be one of them.
        if ["matrix.html", "matrix.md", "matrix.json"].contains(&name.as_str()) {
            return Err(self.at(
                i,
                "name",
                format!("`{name}` is the name of a page the matrix writes"),
            ));
        }

        let (has_start, has_allow_tools) = (raw.start.is_some(), raw.allow_tools.is_some());
        if raw.command.as_ref().is_some_and(Vec::is_empty) {
            return Err(self.at(i, "command", "the command is empty"));
        }
        let command = raw.command.unwrap_or_default();
        let start = raw.start.unwrap_or_default();
        let allow_tools = raw.allow_tools.unwrap_or_default();
        if has_start && start.is_empty() {
            return Err(self.at(i, "start", "the command is empty"));
        }

        let transport = match raw.role {
            Role::Server => {
                match (command.is_empty(), &raw.url) {
                    (true, None) => {
                        return Err(self.error(
                            Some(self.scan.target_line(i)),
                            "command",
                            format!(
                                "server `{name}` has neither `command` (a stdio server) nor \
                                 `url` (an HTTP server); give one"
                            ),
                        ));
                    }
                    (false, Some(_)) => {
                        return Err(self.at(
                            i,
                            "url",
                            format!(
                                "server `{name}` has both `command` and `url`; give one: \
                                 `command` for a stdio server, `url` (and `start`) for an \
                                 HTTP server"
                            ),
                        ));
                    }
                    _ => {}
                }
                if !start.is_empty() && raw.url.is_none() {
                    return Err(self.at(
                        i,
                        "start",
                        "`start` needs `url`: the address the started server listens on",
                    ));
                }
                if raw.transport.is_some() {
                    return Err(self.at(
                        i,
                        "transport",
                        "`transport` is for a client (how it reaches mcpspec); a server's \
                         follows from `command` (stdio) or `url` (HTTP)",
                    ));
                }
                None
            }
            Role::Client => {
                if command.is_empty() {
                    return Err(self.error(
                        Some(self.scan.target_line(i)),
                        "command",
                        format!(
                            "client `{name}` has no `command`: the client's command, to which \
                             mcpspec appends the URL to connect to"
                        ),
                    ));
                }
                let server_only = [
                    ("url", raw.url.is_some()),
                    ("start", has_start),
                    ("allow_tools", has_allow_tools),
                    ("bearer_env", raw.bearer_env.is_some()),
                    ("probe_profile", raw.probe_profile.is_some()),
                ];
                if let Some((key, _)) = server_only.iter().find(|(_, given)| *given) {
                    return Err(self.at(
                        i,
                        key,
                        format!(
                            "`{key}` is for a server; `{name}` is a client (mcpspec plays the \
                             server it connects to)"
                        ),
                    ));
                }
                let transport = raw.transport.unwrap_or_else(|| "http".to_owned());
                if !TRANSPORTS.contains(&transport.as_str()) {
                    return Err(self.at(
                        i,
                        "transport",
                        format!("`{transport}` is not a transport: `http` or `stdio`"),
                    ));
                }
                Some(transport)
            }
        };

        if let Some(url) = &raw.url {
            if !url.starts_with("http://") {
                return Err(self.at(
                    i,
                    "url",
                    format!("`{url}` does not start with http:// (mcpspec speaks plain HTTP)"),
                ));
            }
        }

        let ready_timeout = match raw.ready_timeout {
            None => DEFAULT_READY_TIMEOUT,
            Some(_) if start.is_empty() => {
                return Err(self.at(
                    i,
                    "ready_timeout",
                    "`ready_timeout` is how long to wait after `start`, and there is no `start`",
                ));
            }
            Some(0) => {
                return Err(self.at(i, "ready_timeout", "must be at least 1 (seconds)"));
            }
            Some(secs) => Duration::from_secs(secs),
        };

        if let Some(var) = &raw.bearer_env {
            match env(var) {
                None => {
                    return Err(self.at(
                        i,
                        "bearer_env",
                        format!(
                            "the environment variable `{var}` is not set (the file names the \
                             variable that holds the token, never the token)"
                        ),
                    ));
                }
                Some(v) if v.is_empty() => {
                    return Err(self.at(
                        i,
                        "bearer_env",
                        format!("the environment variable `{var}` is empty"),
                    ));
                }
                Some(_) => {}
            }
        }

        let revisions = match raw.revisions {
            None => file_revisions.to_vec(),
            Some(list) => {
                let block = self.scan.key_block(i, "revisions");
                self.revisions(&list, block, Some(file_revisions))?;
                newest_first(list)
            }
        };

        let cwd = match raw.cwd {
            None => dir.to_path_buf(),
            Some(cwd) if cwd.is_empty() => {
                return Err(self.at(
                    i,
                    "cwd",
                    "the directory is empty; leave `cwd` out to run in the file's directory",
                ));
            }
            Some(cwd) => dir.join(cwd),
        };

        Ok(TargetSpec {
            name,
            label: raw.label,
            role: raw.role,
            command,
            start,
            url: raw.url,
            ready_timeout,
            allow_tools,
            bearer_env: raw.bearer_env,
            revisions,
            transport,
            probe_profile: raw.probe_profile.unwrap_or(false),
            cwd,
            line: self.scan.target_line(i),
        })
    }
}

/// A serde error as a [`FileError`]: its line, the key it is about, and its message in the
/// file's words.
fn from_yaml(file: &str, scan: &Scan<'_>, err: &yaml::Error) -> FileError {
    let full = err.to_string();
    let body = strip_location(&full);
    let (path, msg) = match body.split_once(": ") {
        Some((p, m)) if is_path(p) => (Some(p), m),
        _ => (None, body),
    };
    let located = err.location().map(|l| l.line());
    // The target the error is in, when it is in one: `targets[3]…`.
    let target = path
        .and_then(|p| p.strip_prefix("targets["))
        .and_then(|p| p.split(']').next())
        .and_then(|n| n.parse::<usize>().ok());
    let last_key = path.map(|p| {
        let last = p.rsplit('.').next().unwrap_or(p);
        last.split('[').next().unwrap_or(last).to_owned()
    });
    let error = |line: Option<usize>, key: Option<String>, message: String| FileError {
        file: file.to_owned(),
        line,
        key,
        message,
    };

    if let Some(rest) = msg.strip_prefix("unknown field `") {
        let (key, expected) = rest.split_once('`').unwrap_or((rest, ""));
        let expected = expected.trim_start_matches(", expected ");
        let message = if expected.is_empty() {
            "unknown key".to_owned()
        } else {
            format!("unknown key; expected {expected}")
        };
        return error(located, Some(key.to_owned()), message);
    }
    if let Some(rest) = msg.strip_prefix("missing field `") {
        let key = rest.split('`').next().unwrap_or(rest).to_owned();
        let line = match target {
            Some(i) => Some(scan.target_line(i)),
            None => located,
        };
        let whose = match target {
            Some(i) => format!("target {} has no `{key}`", i + 1),
            None => format!("the file has no `{key}`"),
        };
        return error(line, Some(key), format!("{whose}; it is required"));
    }
    if let Some(rest) = msg.strip_prefix("duplicate field `") {
        // serde points at the mapping; the line is that of the key's second occurrence.
        let key = rest.split('`').next().unwrap_or(rest).to_owned();
        let line = match target {
            Some(i) => scan.second_key_line(i, &key),
            None => scan.second_top_key(&key),
        };
        return error(
            line.or(located),
            Some(key),
            "given twice; give each key once".to_owned(),
        );
    }
    if let Some(rest) = msg.strip_prefix("unknown variant `") {
        let (value, expected) = rest.split_once('`').unwrap_or((rest, ""));
        let expected = expected.trim_start_matches(", expected ");
        let key = last_key.unwrap_or_else(|| "role".to_owned());
        return error(
            located,
            Some(key),
            format!("`{value}` is not one of {expected}"),
        );
    }
    if let Some(rest) = msg.strip_prefix("invalid type: ") {
        let (found, expected) = rest.split_once(", expected ").unwrap_or((rest, "?"));
        let expected = match expected {
            "a sequence" => "a list (`[a, b]`, or one `- item` a line)",
            e if e.starts_with("struct RawTarget") => "a mapping: a target's keys",
            e if e.starts_with("struct RawFile") => "a mapping with `targets` (and `revisions`)",
            e if e.starts_with("a boolean") => "true or false",
            e if e.starts_with("u64") => "a whole number of seconds",
            e => e,
        };
        return error(
            located,
            last_key,
            format!("expected {expected}, found {found}"),
        );
    }
    match last_key {
        Some(key) => error(located, Some(key), msg.to_owned()),
        // Not about a key: libyaml's, the text is not YAML.
        None => error(located, None, format!("not valid YAML: {msg}")),
    }
}

/// serde_norway's message without its trailing ` at line L column C` (the line is reported
/// apart).
fn strip_location(full: &str) -> &str {
    if let Some(at) = full.rfind(" at line ") {
        let tail = &full[at + " at line ".len()..];
        if tail
            .split_once(" column ")
            .is_some_and(|(l, c)| is_number(l) && is_number(c))
        {
            return &full[..at];
        }
    }
    full
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// A serde_norway path (`targets[0].role`), as opposed to words of a message.
fn is_path(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']' | '?' | '-'))
}

/// The lines of the file's text, to find what serde does not locate: a top-level key's block,
/// the n-th entry under `targets:`, a key or a value inside one. Block style as the docs show
/// it; anything it cannot find falls back to the entry's line, then to `targets:`'s, then to
/// none.
struct Scan<'a> {
    lines: Vec<&'a str>,
    /// Each entry of `targets:`: its lines (0-based, end exclusive).
    entries: Vec<Range<usize>>,
}

impl<'a> Scan<'a> {
    fn new(text: &'a str) -> Self {
        let mut scan = Scan {
            lines: text.lines().collect(),
            entries: Vec::new(),
        };
        scan.entries = scan.find_entries();
        scan
    }

    fn find_entries(&self) -> Vec<Range<usize>> {
        let Some(block) = self.top_block("targets") else {
            return Vec::new();
        };
        let mut content = (block.start + 1..block.end).filter(|&i| !is_blank(self.lines[i]));
        let Some(first) = content.next() else {
            return Vec::new();
        };
        if !is_item(self.lines[first]) {
            return Vec::new();
        }
        let indent = indent_of(self.lines[first]);
        let starts: Vec<usize> = (first..block.end)
            .filter(|&i| indent_of(self.lines[i]) == indent && is_item(self.lines[i]))
            .collect();
        starts
            .iter()
            .enumerate()
            .map(|(n, &s)| s..starts.get(n + 1).copied().unwrap_or(block.end))
            .collect()
    }

    /// The 0-based line of the top-level `key:`.
    fn top_key(&self, key: &str) -> Option<usize> {
        self.lines
            .iter()
            .position(|l| indent_of(l) == 0 && !is_item(l) && key_at(l, key))
    }

    /// The lines of the top-level `key:` and its value, up to the next top-level key.
    fn top_block(&self, key: &str) -> Option<Range<usize>> {
        let start = self.top_key(key)?;
        let end = (start + 1..self.lines.len())
            .find(|&i| {
                let l = self.lines[i];
                !is_blank(l) && indent_of(l) == 0 && !is_item(l)
            })
            .unwrap_or(self.lines.len());
        Some(start..end)
    }

    /// The 1-based line of target `i`'s entry; of `targets:` if not found; else 1.
    fn target_line(&self, i: usize) -> usize {
        match self.entries.get(i) {
            Some(r) => r.start + 1,
            None => self.top_key("targets").map_or(1, |l| l + 1),
        }
    }

    /// The 1-based line of `key:` in target `i`'s entry, or the entry's line.
    fn key_line(&self, i: usize, key: &str) -> usize {
        self.entries
            .get(i)
            .and_then(|r| r.clone().find(|&l| key_at(self.lines[l], key)))
            .map_or_else(|| self.target_line(i), |l| l + 1)
    }

    /// The 1-based line of the second `key:` in target `i`'s entry.
    fn second_key_line(&self, i: usize, key: &str) -> Option<usize> {
        let entry = self.entries.get(i)?;
        let mut lines = entry.clone().filter(|&l| key_at(self.lines[l], key));
        lines.nth(1).map(|l| l + 1)
    }

    /// The 1-based line of the second top-level `key:`.
    fn second_top_key(&self, key: &str) -> Option<usize> {
        let mut lines = (0..self.lines.len()).filter(|&i| {
            let l = self.lines[i];
            indent_of(l) == 0 && !is_item(l) && key_at(l, key)
        });
        lines.nth(1).map(|l| l + 1)
    }

    /// The lines from target `i`'s `key:` to the end of its entry.
    fn key_block(&self, i: usize, key: &str) -> Option<Range<usize>> {
        let entry = self.entries.get(i)?;
        let start = entry.clone().find(|&l| key_at(self.lines[l], key))?;
        Some(start..entry.end)
    }

    /// The 1-based line of the `n`-th (0-based) occurrence of `value` as a whole word in
    /// `range`, comments left out.
    fn nth_value(&self, range: Range<usize>, value: &str, n: usize) -> Option<usize> {
        let mut seen = 0;
        for i in range {
            seen += words(uncommented(self.lines[i]), value);
            if seen > n {
                return Some(i + 1);
            }
        }
        None
    }
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// A sequence item: `- …` or a lone `-`.
fn is_item(line: &str) -> bool {
    let t = line.trim_start();
    t == "-" || t.starts_with("- ") || t.starts_with("-\t")
}

/// The line without its comment (a `#` at the start or after a space).
fn uncommented(line: &str) -> &str {
    if line.trim_start().starts_with('#') {
        return "";
    }
    match line.find(" #") {
        Some(at) => &line[..at],
        None => line,
    }
}

/// Whether the line holds `key:` as a mapping key (block or flow style, quoted or not).
fn key_at(line: &str, key: &str) -> bool {
    let code = uncommented(line);
    code.match_indices(key).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let rest = &code[at + key.len()..];
        let rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest);
        matches!(
            before,
            None | Some(' ' | '\t' | '-' | '{' | ',' | '"' | '\'')
        ) && rest.trim_start().starts_with(':')
    })
}

/// How many times `value` occurs in `code` as a whole word.
fn words(code: &str, value: &str) -> usize {
    let boundary =
        |c: Option<char>| !c.is_some_and(|c| c.is_ascii_alphanumeric() || "-._".contains(c));
    code.match_indices(value)
        .filter(|(at, _)| {
            boundary(code[..*at].chars().next_back())
                && boundary(code[at + value.len()..].chars().next())
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "matrix/mcp.yaml";
    /// A good `targets:` of one server.
    const ONE: &str = "targets:\n  - name: a\n    role: server\n    command: [x]\n";

    fn env(name: &str) -> Option<String> {
        match name {
            "MY_TOKEN" => Some("secret".into()),
            "EMPTY_TOKEN" => Some(String::new()),
            _ => None,
        }
    }

    fn parsed(text: &str) -> Result<MatrixFile, FileError> {
        parse(Path::new(FILE), text, &env)
    }

    /// The error of `text`, checked to be at `line` and about `key`; its message.
    #[track_caller]
    fn error_at(text: &str, line: usize, key: Option<&str>) -> String {
        let err = parsed(text).expect_err("the file is refused");
        assert_eq!(err.file, FILE, "{err}");
        assert_eq!(
            (err.line, err.key.as_deref()),
            (Some(line), key),
            "{err}\n---\n{text}"
        );
        err.message
    }

    const GOOD: &str = "\
# Two servers and a client.
revisions: [2025-06-18, 2026-07-28, 2025-11-25]
targets:
  - name: python-stdio
    label: \"mcp 2.3.0 (stdio)\"
    role: server
    command: [python, server.py]
    allow_tools: [echo, add]
  - name: python-http
    role: server
    start: [python, server.py, --http, \"8123\"]
    url: http://127.0.0.1:8123/mcp
    ready_timeout: 5
    bearer_env: MY_TOKEN
    revisions:
      - 2025-06-18
      - 2026-07-28
    probe_profile: true
    cwd: servers/py
  - name: ts.client_1
    role: client
    command: [node, client.js]
    transport: stdio
  - name: rust-client
    role: client
    command: [./client]
";

    #[test]
    fn a_good_file_is_read_with_every_default_filled_in() {
        let file = parsed(GOOD).unwrap();
        assert_eq!(file.path, PathBuf::from(FILE));
        assert_eq!(file.dir, PathBuf::from("matrix"));
        assert_eq!(file.revisions, ["2026-07-28", "2025-11-25", "2025-06-18"]);
        let names: Vec<&str> = file.targets.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            ["python-stdio", "python-http", "ts.client_1", "rust-client"]
        );

        let stdio = &file.targets[0];
        assert_eq!(
            stdio,
            &TargetSpec {
                name: "python-stdio".into(),
                label: Some("mcp 2.3.0 (stdio)".into()),
                role: Role::Server,
                command: vec!["python".into(), "server.py".into()],
                start: vec![],
                url: None,
                ready_timeout: DEFAULT_READY_TIMEOUT,
                allow_tools: vec!["echo".into(), "add".into()],
                bearer_env: None,
                revisions: file.revisions.clone(),
                transport: None,
                probe_profile: false,
                cwd: PathBuf::from("matrix"),
                line: 4,
            }
        );

        let http = &file.targets[1];
        assert_eq!(http.label, None);
        assert_eq!(http.command, Vec::<String>::new());
        assert_eq!(http.start, ["python", "server.py", "--http", "8123"]);
        assert_eq!(http.url.as_deref(), Some("http://127.0.0.1:8123/mcp"));
        assert_eq!(http.ready_timeout, Duration::from_secs(5));
        assert_eq!(http.bearer_env.as_deref(), Some("MY_TOKEN"));
        assert_eq!(http.revisions, ["2026-07-28", "2025-06-18"], "newest first");
        assert!(http.probe_profile);
        assert_eq!(http.cwd, PathBuf::from("matrix/servers/py"));
        assert_eq!(http.line, 9);

        let client = &file.targets[2];
        assert_eq!(client.role, Role::Client);
        assert_eq!(client.transport.as_deref(), Some("stdio"));
        assert_eq!(client.line, 20);
        assert_eq!(file.targets[3].transport.as_deref(), Some("http"));
        assert_eq!(file.targets[3].allow_tools, Vec::<String>::new());
        assert_eq!(file.targets[3].line, 24);
    }

    #[test]
    fn without_revisions_every_known_revision_is_compared_newest_first() {
        let file = parse(
            Path::new("m.yaml"),
            "targets:\n- name: a\n  role: server\n  command: [srv]\n",
            &env,
        )
        .unwrap();
        let mut all: Vec<String> = version::ALL.iter().map(|r| (*r).to_owned()).collect();
        all.reverse();
        assert_eq!(file.revisions, all);
        assert_eq!(file.targets[0].revisions, all);
        assert_eq!(file.dir, PathBuf::from("."), "a bare file name");
        assert_eq!(file.targets[0].cwd, PathBuf::from("."));
        assert_eq!(file.targets[0].line, 2, "items at the key's indent");
    }

    #[test]
    fn an_absolute_cwd_is_kept() {
        let file = parsed(
            "targets:\n  - name: a\n    role: server\n    command: [srv]\n    cwd: /opt/srv\n",
        )
        .unwrap();
        assert_eq!(file.targets[0].cwd, PathBuf::from("/opt/srv"));
    }

    #[test]
    fn the_error_reads_file_line_key_message_leaving_out_what_is_unknown() {
        let mut err = FileError {
            file: "m.yaml".into(),
            line: Some(7),
            key: Some("bearer_env".into()),
            message: "not set".into(),
        };
        assert_eq!(err.to_string(), "m.yaml:7: `bearer_env`: not set");
        err.key = None;
        assert_eq!(err.to_string(), "m.yaml:7: not set");
        err.line = None;
        assert_eq!(err.to_string(), "m.yaml: not set");
        err.key = Some("targets".into());
        assert_eq!(err.to_string(), "m.yaml: `targets`: not set");
    }

    #[test]
    fn text_that_is_not_yaml() {
        let message = error_at(
            "targets:\n  - name: a\n    role: server\n   command: [x\n",
            4,
            None,
        );
        assert!(message.starts_with("not valid YAML: "), "{message}");
        let message = error_at("targets: [\n", 2, None);
        assert!(message.starts_with("not valid YAML: "), "{message}");
    }

    #[test]
    fn the_top_level_must_be_a_mapping() {
        let message = error_at("- name: a\n", 1, None);
        assert!(message.contains("a mapping with `targets`"), "{message}");
    }

    #[test]
    fn an_unknown_top_level_key() {
        let message = error_at(
            "revisions: [2026-07-28]\ntarget:\n  - name: a\n",
            2,
            Some("target"),
        );
        assert_eq!(message, "unknown key; expected `revisions` or `targets`");
    }

    #[test]
    fn an_unknown_key_in_a_target() {
        let message = error_at(
            "targets:\n  - name: a\n    role: server\n    command: [srv]\n    allow_tool: [x]\n",
            5,
            Some("allow_tool"),
        );
        assert!(
            message.starts_with("unknown key; expected one of `name`, `label`, `role`"),
            "{message}"
        );
    }

    #[test]
    fn a_key_given_twice() {
        let text = format!("{ONE}    label: x\n    command: [y]\n");
        assert_eq!(
            error_at(&text, 6, Some("command")),
            "given twice; give each key once"
        );
        error_at(
            &format!("revisions: [2026-07-28]\n{ONE}revisions: [2025-11-25]\n"),
            6,
            Some("revisions"),
        );
    }

    #[test]
    fn a_missing_name_or_role() {
        let text = "targets:\n  - name: a\n    role: server\n    command: [x]\n  - role: server\n    command: [y]\n";
        let message = error_at(text, 5, Some("name"));
        assert_eq!(message, "target 2 has no `name`; it is required");
        error_at("targets:\n  - name: a\n    command: [x]\n", 2, Some("role"));
    }

    #[test]
    fn a_value_of_the_wrong_type() {
        let message = error_at(
            "targets:\n  - name: a\n    role: server\n    command: python server.py\n",
            4,
            Some("command"),
        );
        assert!(message.starts_with("expected a list"), "{message}");
        let message = error_at(
            "targets:\n  - name: a\n    role: server\n    command: [x]\n    probe_profile: yes please\n",
            5,
            Some("probe_profile"),
        );
        assert!(message.starts_with("expected true or false"), "{message}");
        error_at(
            "targets:\n  - name: a\n    role: server\n    url: http://h/mcp\n    start: [x]\n    ready_timeout: soon\n",
            6,
            Some("ready_timeout"),
        );
    }

    #[test]
    fn no_targets() {
        let message = error_at("revisions: [2026-07-28]\ntargets: []\n", 2, Some("targets"));
        assert!(message.starts_with("no targets"), "{message}");
        error_at("revisions: [2026-07-28]\n", 1, Some("targets"));
        error_at("targets:\n", 1, Some("targets"));
        let err = parsed("").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{FILE}:1: `targets`: no targets: list at least one (`name`, `role` and how to \
                 run it)"
            )
        );
    }

    #[test]
    fn a_duplicate_target_name() {
        let text = "\
targets:
  - name: a
    role: server
    command: [x]
  - name: b
    role: client
    command: [c]
  - role: server
    name: a
    command: [y]
";
        let message = error_at(text, 9, Some("name"));
        assert_eq!(
            message,
            "`a` is also the name of the target on line 2; names must be unique"
        );
    }

    #[test]
    fn a_name_with_characters_it_may_not_have() {
        for (name, says) in [
            ("\"my server\"", "has ' '"),
            ("a/b", "has '/'"),
            (".hidden", "starts with `.`"),
            ("matrix.json", "is the name of a page the matrix writes"),
            ("\"\"", "is empty"),
        ] {
            let text = format!("targets:\n  - role: server\n    command: [x]\n    name: {name}\n");
            let message = error_at(&text, 4, Some("name"));
            assert!(message.contains(says), "{name}: {message}");
        }
    }

    #[test]
    fn a_bearer_env_that_is_not_set_or_empty() {
        let text = "\
targets:
  - name: a
    role: server
    url: http://127.0.0.1:1/mcp
    bearer_env: NOT_SET_ANYWHERE
";
        let err = parsed(text).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{FILE}:5: `bearer_env`: the environment variable `NOT_SET_ANYWHERE` is not set \
                 (the file names the variable that holds the token, never the token)"
            )
        );
        let message = error_at(
            &text.replace("NOT_SET_ANYWHERE", "EMPTY_TOKEN"),
            5,
            Some("bearer_env"),
        );
        assert!(message.ends_with("is empty"), "{message}");
    }

    #[test]
    fn a_revision_the_catalogue_does_not_know() {
        let text = format!("revisions:\n  - 2026-07-28\n  - 2025-01-01\n{ONE}");
        let message = error_at(&text, 3, Some("revisions"));
        assert!(
            message
                .starts_with("`2025-01-01` is not a revision mcpspec knows (it knows 2026-07-28, "),
            "{message}"
        );
        // Flow style, and a target's own list.
        error_at(
            &format!("revisions: [2026-07-28, 2099-12-31]\n{ONE}"),
            1,
            Some("revisions"),
        );
        let text = "\
targets:
  - name: a
    role: server
    command: [x]
  - name: b
    role: server
    command: [y]
    # 2024-01-01 is not one either
    revisions: [2026-07-28,
      2024-01-01]
";
        error_at(text, 10, Some("revisions"));
    }

    #[test]
    fn a_revision_listed_twice() {
        let text = "revisions:\n  - 2026-07-28\n  - 2025-06-18\n  - 2026-07-28\ntargets: []\n";
        let message = error_at(text, 4, Some("revisions"));
        assert_eq!(message, "`2026-07-28` is listed twice");
    }

    #[test]
    fn an_empty_revisions_list() {
        error_at(&format!("revisions: []\n{ONE}"), 1, Some("revisions"));
        error_at(
            "targets:\n  - name: a\n    role: server\n    command: [x]\n    revisions: []\n",
            5,
            Some("revisions"),
        );
    }

    #[test]
    fn a_target_revision_not_among_the_files() {
        let text = "\
revisions: [2026-07-28, 2025-11-25]
targets:
  - name: a
    role: server
    command: [x]
    revisions:
      - 2026-07-28
      - 2025-06-18
";
        let message = error_at(text, 8, Some("revisions"));
        assert_eq!(
            message,
            "`2025-06-18` is not among the file's revisions (2026-07-28, 2025-11-25); a \
             target's `revisions` picks some of those"
        );
    }

    #[test]
    fn a_bad_role() {
        let message = error_at(
            "targets:\n  - name: a\n    command: [x]\n    role: proxy\n",
            4,
            Some("role"),
        );
        assert_eq!(message, "`proxy` is not one of `server` or `client`");
    }

    #[test]
    fn a_server_with_neither_or_both_command_and_url() {
        let message = error_at(
            "targets:\n  - name: a\n    role: server\n    label: nothing to run\n",
            2,
            Some("command"),
        );
        assert!(message.contains("neither `command`"), "{message}");
        let message = error_at(
            "targets:\n  - name: a\n    role: server\n    command: [x]\n    url: http://127.0.0.1:9/mcp\n",
            5,
            Some("url"),
        );
        assert!(message.contains("both `command` and `url`"), "{message}");
        error_at(
            "targets:\n  - name: a\n    role: server\n    command: []\n",
            4,
            Some("command"),
        );
    }

    #[test]
    fn start_without_url() {
        let message = error_at(
            "targets:\n  - name: a\n    role: server\n    command: [x]\n    start: [srv, --http]\n",
            5,
            Some("start"),
        );
        assert_eq!(
            message,
            "`start` needs `url`: the address the started server listens on"
        );
    }

    #[test]
    fn ready_timeout_without_start_or_zero() {
        error_at(
            "targets:\n  - name: a\n    role: server\n    url: http://h/mcp\n    ready_timeout: 10\n",
            5,
            Some("ready_timeout"),
        );
        error_at(
            "targets:\n  - name: a\n    role: server\n    url: http://h/mcp\n    start: [s]\n    ready_timeout: 0\n",
            6,
            Some("ready_timeout"),
        );
    }

    #[test]
    fn a_url_that_is_not_http() {
        let message = error_at(
            "targets:\n  - name: a\n    role: server\n    url: https://example.com/mcp\n",
            4,
            Some("url"),
        );
        assert_eq!(
            message,
            "`https://example.com/mcp` does not start with http:// (mcpspec speaks plain HTTP)"
        );
    }

    #[test]
    fn a_client_without_command() {
        let message = error_at(
            "targets:\n  - name: a\n    role: server\n    command: [x]\n  - name: c\n    role: client\n",
            5,
            Some("command"),
        );
        assert!(
            message.starts_with("client `c` has no `command`"),
            "{message}"
        );
    }

    #[test]
    fn a_client_with_a_servers_keys() {
        for (key, value) in [
            ("url", "http://127.0.0.1:1/mcp"),
            ("start", "[srv]"),
            ("allow_tools", "[echo]"),
            ("bearer_env", "MY_TOKEN"),
            ("probe_profile", "false"),
        ] {
            let text = format!(
                "targets:\n  - name: c\n    role: client\n    command: [node, c.js]\n    {key}: {value}\n"
            );
            let message = error_at(&text, 5, Some(key));
            assert_eq!(
                message,
                format!(
                    "`{key}` is for a server; `c` is a client (mcpspec plays the server it \
                     connects to)"
                )
            );
        }
    }

    #[test]
    fn transport_is_a_clients_and_http_or_stdio() {
        let message = error_at(
            "targets:\n  - name: c\n    role: client\n    command: [c]\n    transport: sse\n",
            5,
            Some("transport"),
        );
        assert_eq!(message, "`sse` is not a transport: `http` or `stdio`");
        error_at(
            "targets:\n  - name: s\n    role: server\n    command: [s]\n    transport: stdio\n",
            5,
            Some("transport"),
        );
    }

    #[test]
    fn load_reads_the_file_and_wants_each_cwd_to_be_a_directory() {
        let dir = std::env::temp_dir().join(format!("mcpspec-matrix-file-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("srv")).unwrap();
        let path = dir.join("m.yaml");
        let text = "targets:\n  - name: a\n    role: server\n    command: [x]\n    cwd: srv\n";
        std::fs::write(&path, text).unwrap();
        let file = load(&path).unwrap();
        assert_eq!(file.dir, dir);
        assert_eq!(file.targets[0].cwd, dir.join("srv"));
        std::fs::write(&path, text.replace("cwd: srv", "cwd: nowhere")).unwrap();
        let err = load(&path).unwrap_err();
        assert_eq!((err.line, err.key.as_deref()), (Some(5), Some("cwd")));
        assert!(err.message.ends_with("is not a directory"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
        let err = load(&path).unwrap_err();
        assert_eq!((err.line, err.key.as_deref()), (None, None));
        assert!(
            err.message.starts_with("cannot read the matrix file"),
            "{err}"
        );
    }
}
