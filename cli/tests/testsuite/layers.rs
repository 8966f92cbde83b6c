//! The layers inside each crate (ARCHITECTURE.md, "… layers, tested"): every module imports
//! of its crate, and of the crates below it, only what its row of the crate's table allows, and
//! each table has no cycle, so imports point one way.
//!
//! The reader sees the code as the compiler does where it matters here: comments and string
//! literals are not code (an import after `"http://"` is still read), a `#[cfg(test)]` removes
//! the one item it sits on (not the rest of the file), a name the crate root re-exports is its
//! module's (`crate::RunReport` imports `report`), and `super::super::x` that climbs to the root
//! imports `x`. Crates keep what is between them (Cargo refuses an import a manifest does not
//! allow); this test keeps the modules inside each crate, and which part of a crate below each
//! may stand on: a module of a crate below is named by its crate's short name in the table
//! (`mcpspec_core::wire::Frame` is `core::wire`, `mcpspec_harness::report::RunReport` is
//! `harness::report`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support;

/// One crate's library and the ARCHITECTURE.md section that holds its table.
struct Library {
    src: &'static str,
    section: &'static str,
    /// Top-level files that are no module of the table: the crate root.
    outside: &'static [&'static str],
    /// The crates below whose modules the table names.
    below: &'static [Below],
}

/// A crate below a library: how code names it, and how its table does.
struct Below {
    /// The crate's name in a path (`mcpspec_core`).
    path: &'static str,
    /// Its name in a table (`core`, as in `core::wire`).
    short: &'static str,
    library: &'static Library,
}

const CORE: Library = Library {
    src: "core/src",
    section: "## The core's layers, tested",
    outside: &["lib"],
    below: &[],
};

const ON_CORE: Below = Below {
    path: "mcpspec_core",
    short: "core",
    library: &CORE,
};

const HARNESS: Library = Library {
    src: "harness/src",
    section: "## The harness's layers, tested",
    outside: &["lib"],
    below: &[ON_CORE],
};

const ON_HARNESS: Below = Below {
    path: "mcpspec_harness",
    short: "harness",
    library: &HARNESS,
};

const CLIENT: Library = Library {
    src: "client/src",
    section: "## The client tester's layers, tested",
    outside: &["lib"],
    below: &[ON_CORE, ON_HARNESS],
};

const REFERENCE_CLIENT: Library = Library {
    src: "reference-client/src",
    section: "## The reference client's layers, tested",
    outside: &["lib"],
    below: &[ON_CORE, ON_HARNESS],
};

const REFERENCE_SERVER: Library = Library {
    src: "reference-server/src",
    section: "## The reference server's layers, tested",
    outside: &["lib", "main"],
    below: &[],
};

/// What the crate root defines itself (not re-exported from a module) is named `lib`.
const ROOT: &str = "lib";

impl Library {
    fn src(&self) -> PathBuf {
        support::repo_root().join(self.src)
    }

    /// The table: module → what it may import.
    fn documented(&self) -> BTreeMap<String, BTreeSet<String>> {
        let text = std::fs::read_to_string(support::repo_root().join("ARCHITECTURE.md")).unwrap();
        let section = text
            .split(self.section)
            .nth(1)
            .unwrap_or_else(|| panic!("ARCHITECTURE.md has the section {:?}", self.section));
        let section = section.split("\n## ").next().unwrap();
        let mut table = BTreeMap::new();
        for row in section.lines().filter(|l| l.starts_with("| `")) {
            let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
            let module = backticked(cells[0]).into_iter().next().unwrap();
            table.insert(module, backticked(cells[1]));
        }
        assert!(table.len() >= 3, "the table lists the modules: {table:?}");
        table
    }

    /// The library's top-level modules: `src/x.rs` and `src/x/mod.rs`, the files outside aside.
    fn modules(&self) -> BTreeSet<String> {
        std::fs::read_dir(self.src())
            .unwrap()
            .filter_map(|e| {
                let path = e.unwrap().path();
                let name = path.file_stem()?.to_str()?.to_owned();
                let module = if path.is_dir() {
                    path.join("mod.rs").exists()
                } else {
                    path.extension().is_some_and(|x| x == "rs")
                };
                (module && !self.outside.contains(&name.as_str())).then_some(name)
            })
            .collect()
    }

    /// How the crate root's names read: its modules, its re-exports (as their module), and how
    /// the root of each crate below reads (as that crate's short name and module).
    fn root(&self) -> Root {
        let mut modules = self.modules();
        modules.extend(self.outside.iter().map(|m| (*m).to_owned()));
        let text = std::fs::read_to_string(self.src().join("lib.rs")).unwrap();
        let mut reexports = reexports(&without_test_items(&code_only(&text)), self.below);
        reexports.extend(self.exported_macros());
        Root {
            modules,
            reexports,
            below: self
                .below
                .iter()
                .map(|b| (b.path, b.short, b.library.root()))
                .collect(),
        }
    }

    /// The `#[macro_export]` macros, which live at the crate root, with the module that
    /// defines each (`crate::errln!` is `output`'s).
    fn exported_macros(&self) -> BTreeMap<String, String> {
        let mut found = BTreeMap::new();
        for module in self.modules() {
            for (file, _) in files_of(&self.src(), &module) {
                let code = code_only(&std::fs::read_to_string(&file).unwrap());
                for after in code.split("#[macro_export]").skip(1) {
                    if let Some(rest) = after.trim_start().split("macro_rules!").nth(1) {
                        found.insert(ident(rest.trim_start()).to_owned(), module.clone());
                    }
                }
            }
        }
        found
    }

    /// What each module imports of the crate, read from its production code.
    fn actual(&self) -> BTreeMap<String, BTreeSet<String>> {
        let src = self.src();
        let root = self.root();
        self.modules()
            .into_iter()
            .map(|m| {
                let mut used = BTreeSet::new();
                for (file, depth) in files_of(&src, &m) {
                    let text = std::fs::read_to_string(&file).unwrap();
                    let code = without_test_items(&code_only(&text));
                    for name in imports(&code, depth, &root) {
                        if name != m {
                            used.insert(name);
                        }
                    }
                }
                (m, used)
            })
            .collect()
    }

    fn assert_imports_follow_the_table(&self) {
        let table = self.documented();
        let modules = self.modules();
        let undocumented: Vec<&String> =
            modules.iter().filter(|m| !table.contains_key(*m)).collect();
        assert!(
            undocumented.is_empty(),
            "{}: modules missing from ARCHITECTURE.md's layers table: {undocumented:?}",
            self.src
        );
        let stale: Vec<&String> = table.keys().filter(|m| !modules.contains(*m)).collect();
        assert!(
            stale.is_empty(),
            "{}: the table names modules that do not exist: {stale:?}",
            self.src
        );
        let mut violations = Vec::new();
        for (module, used) in self.actual() {
            for name in used.difference(&table[&module]) {
                violations.push(format!("{module} imports {name}"));
            }
        }
        assert!(
            violations.is_empty(),
            "{}: imports the layers table does not allow (ARCHITECTURE.md):\n{}",
            self.src,
            violations.join("\n")
        );
    }

    fn assert_no_cycle(&self) {
        // Kahn's algorithm: repeatedly remove the modules that import nothing left.
        let mut left = self.documented();
        while !left.is_empty() {
            let free: Vec<String> = left
                .iter()
                .filter(|(_, deps)| deps.iter().all(|d| !left.contains_key(d)))
                .map(|(m, _)| m.clone())
                .collect();
            assert!(
                !free.is_empty(),
                "{}: the layers table has a cycle among {:?}",
                self.src,
                left.keys().collect::<Vec<_>>()
            );
            for m in free {
                left.remove(&m);
            }
        }
    }
}

/// The `backticked` names of a table cell.
fn backticked(cell: &str) -> BTreeSet<String> {
    cell.split(',')
        .filter_map(|n| {
            n.trim()
                .strip_prefix('`')?
                .split('`')
                .next()
                .map(str::to_owned)
        })
        .collect()
}

/// The source files of top-level module `name`, each with the depth of its module below the
/// crate root (`x.rs` and `x/mod.rs` 1, `x/y.rs` 2, …). Files named `tests.rs` and folders
/// named `tests` hold test modules only and are left out.
fn files_of(src: &Path, name: &str) -> Vec<(PathBuf, usize)> {
    let mut files = Vec::new();
    let top = src.join(format!("{name}.rs"));
    if top.exists() {
        files.push((top, 1));
    }
    let mut dirs = vec![(src.join(name), 1)];
    while let Some((dir, depth)) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                if file_name != "tests" {
                    dirs.push((path, depth + 1));
                }
            } else if path.extension().is_some_and(|e| e == "rs") && file_name != "tests.rs" {
                let depth = if file_name == "mod.rs" {
                    depth
                } else {
                    depth + 1
                };
                files.push((path, depth));
            }
        }
    }
    files
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn ident(s: &str) -> &str {
    &s[..s.find(|c: char| !is_ident(c)).unwrap_or(s.len())]
}

/// `text` with its comments removed and the insides of its string and character literals
/// blanked (quotes and line breaks kept), so that nothing in them reads as code.
fn code_only(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    while i < c.len() {
        let prev_ident = i > 0 && is_ident(c[i - 1]);
        match c[i] {
            '/' if at(i + 1) == '/' => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if at(i + 1) == '*' => {
                let mut depth = 0;
                while i < c.len() {
                    if c[i] == '/' && at(i + 1) == '*' {
                        depth += 1;
                        i += 2;
                    } else if c[i] == '*' && at(i + 1) == '/' {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        blank(&mut out, c[i]);
                        i += 1;
                    }
                }
            }
            // Raw strings: r"…", r#"…"#, br#"…"#.
            'r' | 'b' if !prev_ident && raw_string_start(&c, i).is_some() => {
                let (open_len, hashes) = raw_string_start(&c, i).unwrap();
                out.push('"');
                i += open_len;
                loop {
                    if i >= c.len() {
                        break;
                    }
                    if c[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                        i += 1 + hashes;
                        break;
                    }
                    blank(&mut out, c[i]);
                    i += 1;
                }
                out.push('"');
            }
            '"' => {
                out.push('"');
                i += 1;
                while i < c.len() && c[i] != '"' {
                    if c[i] == '\\' {
                        out.push(' ');
                        i += 1;
                    }
                    if i < c.len() {
                        blank(&mut out, c[i]);
                        i += 1;
                    }
                }
                out.push('"');
                i += 1;
            }
            // A character literal ('x', '\n', '\u{1F600}'), not a lifetime ('a).
            '\'' if at(i + 1) == '\\' || (at(i + 2) == '\'' && at(i + 1) != '\'') => {
                out.push('\'');
                i += 1;
                while i < c.len() && c[i] != '\'' {
                    if c[i] == '\\' {
                        i += 1;
                    }
                    out.push(' ');
                    i += 1;
                }
                out.push('\'');
                i += 1;
            }
            ch => {
                out.push(ch);
                i += 1;
            }
        }
    }
    out
}

/// At `i`, the opening of a raw string: its length and the number of `#`.
fn raw_string_start(c: &[char], i: usize) -> Option<(usize, usize)> {
    let mut j = i;
    if c.get(j) == Some(&'b') {
        j += 1;
    }
    if c.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = c[j..].iter().take_while(|&&ch| ch == '#').count();
    j += hashes;
    (c.get(j) == Some(&'"')).then_some((j + 1 - i, hashes))
}

/// The index just past the bracket that closes the one opening at `open`.
fn matching(code: &[char], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, &ch) in code.iter().enumerate().skip(open) {
        match ch {
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// Whether an attribute's text (`cfg(all(test, unix))`) makes its item test-only.
fn test_only(attribute: &str) -> bool {
    let text: String = attribute.chars().filter(|c| !c.is_whitespace()).collect();
    text.starts_with("cfg(")
        && !text.contains("not(test")
        && text
            .split(|c: char| !is_ident(c))
            .any(|word| word == "test")
}

/// `code` (already [`code_only`]) without the items a test-only `#[cfg(…)]` sits on: the
/// attribute, the attributes after it, and its item up to its `;` or its closing brace.
fn without_test_items(code: &str) -> String {
    let c: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    while i < c.len() {
        if c[i] == '#' && c.get(i + 1) == Some(&'[') {
            let end = matching(&c, i + 1);
            let attribute: String = c[i + 2..end - 1].iter().collect();
            if test_only(&attribute) {
                i = item_end(&c, end);
                continue;
            }
            out.extend(&c[i..end]);
            i = end;
            continue;
        }
        out.push(c[i]);
        i += 1;
    }
    out
}

/// Where the item that starts after `from` (past further attributes) ends.
fn item_end(c: &[char], mut from: usize) -> usize {
    loop {
        while from < c.len() && c[from].is_whitespace() {
            from += 1;
        }
        if c.get(from) == Some(&'#') && c.get(from + 1) == Some(&'[') {
            from = matching(c, from + 1);
        } else {
            break;
        }
    }
    let mut k = from;
    while k < c.len() {
        match c[k] {
            ';' => return k + 1,
            '{' => return matching(c, k),
            '(' | '[' => k = matching(c, k),
            _ => k += 1,
        }
    }
    c.len()
}

/// The names the crate root's `pub use` lines re-export, with the module each comes from: a
/// module of this crate, or `short::module` of a crate below (`pub use mcpspec_core::wire`).
fn reexports(root: &str, below: &[Below]) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for statement in root.split(';') {
        let Some(path) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let path = path.trim();
        let path = path.strip_prefix("crate::").unwrap_or(path);
        let crate_below = below.iter().find(|b| {
            path.strip_prefix(b.path)
                .is_some_and(|rest| rest.starts_with("::"))
        });
        let (prefix, path) = match crate_below {
            Some(b) => (format!("{}::", b.short), &path[b.path.len() + 2..]),
            None => (String::new(), path),
        };
        // `pub use mcpspec_core::{wire, text}`: each module below is a name of its own.
        if crate_below.is_some() && !path[ident(path).len()..].starts_with("::") {
            let names = path.trim_start_matches('{').trim_end_matches('}');
            for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                map.insert(name.to_owned(), format!("{prefix}{name}"));
            }
            continue;
        }
        let module = format!("{prefix}{}", ident(path));
        let names: Vec<&str> = match path.find('{') {
            Some(open) => path[open + 1..].trim_end_matches('}').split(',').collect(),
            None => vec![path.rsplit("::").next().unwrap_or(path)],
        };
        for name in names {
            let name = name.rsplit(" as ").next().unwrap_or(name).trim();
            let name = name.rsplit("::").next().unwrap_or(name);
            if !name.is_empty() && name != "self" {
                map.insert(name.to_owned(), module.clone());
            }
        }
    }
    map
}

/// The names at the crate root: its modules and what it re-exports. Anything else a path names
/// there is an item of the root itself ([`ROOT`]).
struct Root {
    modules: BTreeSet<String>,
    reexports: BTreeMap<String, String>,
    /// Each crate below: its name in paths, its short name, its root.
    below: Vec<(&'static str, &'static str, Root)>,
}

impl Root {
    fn module_of(&self, name: &str) -> String {
        if let Some(module) = self.reexports.get(name) {
            module.clone()
        } else if self.modules.contains(name) {
            name.to_owned()
        } else {
            ROOT.to_owned()
        }
    }

    /// A name at the root of the crate below named `short`, as the table writes it.
    fn below_module_of(&self, index: usize, name: &str) -> String {
        let (_, short, root) = &self.below[index];
        let module = root.module_of(name);
        if module.contains("::") {
            module
        } else {
            format!("{short}::{module}")
        }
    }
}

/// The spans of the inline modules (`mod x { … }`) of `code`.
fn inline_modules(c: &[char]) -> Vec<(usize, usize)> {
    let text: String = c.iter().collect();
    let mut spans = Vec::new();
    for (at, _) in text.match_indices("mod ") {
        if at > 0 && is_ident(c[at - 1]) {
            continue;
        }
        let rest = &text[at + 4..];
        let name = ident(rest.trim_start());
        let after = rest.trim_start()[name.len()..].trim_start();
        if !name.is_empty() && after.starts_with('{') {
            let open = text.len() - after.len();
            let open = text[..open].chars().count();
            spans.push((open, matching(c, open)));
        }
    }
    spans
}

/// The crate's top-level modules `code` names, for a file whose module is `depth` below the
/// crate root: `crate::x…` paths, `use crate::{x, y::z}` groups, `super::…` paths that reach
/// the root, and names the root re-exports (as their module; other root items as `lib`).
fn imports(code: &str, depth: usize, root: &Root) -> BTreeSet<String> {
    let c: Vec<char> = code.chars().collect();
    let text: String = c.iter().collect();
    let inline = inline_modules(&c);
    let mut found = BTreeSet::new();
    // `name_of` reads a root's name as the table writes it: this crate's, or one below.
    let mut record = |rest: &str, name_of: &dyn Fn(&str) -> String| {
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level names of the group: after `{` and after each comma at depth 0.
            let mut level = 0;
            let mut expect_name = true;
            for (i, ch) in group.char_indices() {
                match ch {
                    '{' => level += 1,
                    '}' if level == 0 => break,
                    '}' => level -= 1,
                    ',' if level == 0 => expect_name = true,
                    ch if expect_name && is_ident(ch) => {
                        found.insert(name_of(ident(&group[i..])));
                        expect_name = false;
                    }
                    _ => {}
                }
            }
        } else if rest.starts_with(is_ident) {
            found.insert(name_of(ident(rest)));
        }
    };
    for (index, (byte, _)) in text.char_indices().enumerate() {
        let at_start = index == 0 || !(is_ident(c[index - 1]) || c[index - 1] == ':');
        let rest = &text[byte..];
        let own = |name: &str| root.module_of(name);
        let below = root.below.iter().enumerate().find_map(|(i, (path, _, _))| {
            let tail = rest.strip_prefix(path)?.strip_prefix("::")?;
            Some((i, tail))
        });
        if at_start && rest.starts_with("crate::") {
            record(&rest["crate::".len()..], &own);
        } else if let Some((i, tail)) = below.filter(|_| at_start) {
            record(tail, &|name| root.below_module_of(i, name));
        } else if at_start && rest.starts_with("super::") {
            let mut climbs = 0;
            let mut tail = rest;
            while let Some(t) = tail.strip_prefix("super::") {
                climbs += 1;
                tail = t.trim_start();
            }
            let nested = inline
                .iter()
                .filter(|(a, b)| *a < index && index < *b)
                .count();
            if climbs >= depth + nested {
                record(tail, &own);
            }
        }
    }
    found
}

#[test]
fn every_harness_module_imports_only_what_the_architecture_allows() {
    HARNESS.assert_imports_follow_the_table();
}

#[test]
fn every_reference_server_module_imports_only_what_the_architecture_allows() {
    REFERENCE_SERVER.assert_imports_follow_the_table();
}

#[test]
fn every_core_module_imports_only_what_the_architecture_allows() {
    CORE.assert_imports_follow_the_table();
}

#[test]
fn every_client_tester_module_imports_only_what_the_architecture_allows() {
    CLIENT.assert_imports_follow_the_table();
}

#[test]
fn every_reference_client_module_imports_only_what_the_architecture_allows() {
    REFERENCE_CLIENT.assert_imports_follow_the_table();
}

#[test]
fn the_layers_have_no_cycle() {
    for library in [
        &CORE,
        &HARNESS,
        &CLIENT,
        &REFERENCE_CLIENT,
        &REFERENCE_SERVER,
    ] {
        library.assert_no_cycle();
    }
}

fn read(code: &str, depth: usize) -> BTreeSet<String> {
    let root = Root {
        modules: set(&[
            "check", "config", "driver", "outcome", "output", "pool", "report", "runner", "schema",
            "sibling", "text", "wire", "x",
        ]),
        reexports: reexports(
            &code_only(
                "pub use check::{Check, Need};\npub use report::RunReport;\n\
                 pub use crate::config::faults;\npub use mcpspec_core::{transport, redact};",
            ),
            &[ON_CORE],
        ),
        below: vec![
            (
                "mcpspec_core",
                "core",
                Root {
                    modules: set(&["redact", "text", "transport", "wire"]),
                    reexports: BTreeMap::new(),
                    below: Vec::new(),
                },
            ),
            (
                "mcpspec_harness",
                "harness",
                Root {
                    modules: set(&["fuzz", "output", "report"]),
                    reexports: reexports("pub use report::RunReport;", &[]),
                    below: Vec::new(),
                },
            ),
        ],
    };
    imports(&without_test_items(&code_only(code)), depth, &root)
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

/// The scanner sees an import in each form the code writes one, and no import in a comment or
/// a test module.
#[test]
fn the_scanner_reads_every_form_of_import() {
    let code = "use crate::driver::{Peer, request};\nuse crate::{outcome::Kind, text, wire::{self, Frame}};\n\
                fn f() { crate::output::errln!(\"x\"); let _ = crate::pool::Mode::Shared; }\n\
                // crate::runner in a comment\n#[cfg(test)]\nmod tests { use crate::report; }";
    assert_eq!(
        read(code, 1),
        set(&["driver", "outcome", "output", "text", "wire", "pool"])
    );
}

/// Hole 1: a name imported through the crate root is its module's.
#[test]
fn a_name_the_root_reexports_is_an_import_of_its_module() {
    assert_eq!(read("fn g(r: &crate::RunReport) {}", 1), set(&["report"]));
    assert_eq!(
        read("use crate::{Check, faults};", 1),
        set(&["check", "config"])
    );
    // What the root defines itself is the root's.
    assert_eq!(
        read("use crate::Server; crate::serve_stream(x);", 1),
        set(&["lib"])
    );
}

/// Hole 2: `super::` that climbs to the crate root names a top-level module; below it, the
/// file's own module.
#[test]
fn super_paths_that_reach_the_root_are_imports() {
    let code = "use super::super::driver::Peer;\nuse super::sibling::X;";
    assert_eq!(read(code, 2), set(&["driver"]));
    assert_eq!(read(code, 3), set(&[]));
    assert_eq!(
        read("use super::{pool, text::x};", 1),
        set(&["pool", "text"])
    );
    // Inside an inline module one more climb is needed.
    assert_eq!(
        read("mod inner { use super::super::wire; }\nuse super::x;", 1),
        set(&["wire", "x"])
    );
}

/// Hole 3: `#[cfg(test)]` takes out the one item it sits on; what follows is read.
#[test]
fn a_test_only_item_hides_only_itself() {
    let code = "#[cfg(test)]\nfn helper() { let _ = crate::runner::run; }\n\
                #[cfg(test)]\nuse crate::report::X;\n\
                #[cfg(all(test, unix))]\n#[allow(dead_code)]\nmod m;\n\
                use crate::pool::Pool;\n\
                #[cfg(test)]\nmod tests { use crate::report; }\n\
                #[cfg(not(test))]\nuse crate::wire::Frame;";
    assert_eq!(read(code, 1), set(&["pool", "wire"]));
}

/// Hole 4: comments and literals are not code, so `//` in a string hides nothing after it, and
/// a path in a string or comment is no import.
#[test]
fn strings_and_comments_neither_hide_nor_make_imports() {
    let code = "const U: &str = \"http://x\"; use crate::wire::Frame;\n\
                const R: &str = r#\"crate::report \"quoted\" //\"#; use crate::text::x;\n\
                let c = '\"'; use crate::pool::P; let q = '\\''; use crate::driver::D;\n\
                fn f<'a>(x: &'a str) { crate::outcome::Kind::Pass; }\n\
                /* crate::runner /* nested */ crate::report */ use crate::schema::S;";
    assert_eq!(
        read(code, 1),
        set(&["wire", "text", "pool", "driver", "outcome", "schema"])
    );
}

/// A crate below is named in the table by its short name and module, however the code reaches
/// it: through this root's re-export, by the crate's path, or through the crate's own root.
#[test]
fn a_crate_below_is_named_by_its_short_name_and_module() {
    assert_eq!(
        read(
            "use crate::transport::Recv; fn f() { crate::redact::text(\"x\"); }",
            1
        ),
        set(&["core::transport", "core::redact"])
    );
    assert_eq!(
        read(
            "use mcpspec_core::wire::Frame;\nuse mcpspec_core::{text, transport::Recv};",
            1
        ),
        set(&["core::wire", "core::text", "core::transport"])
    );
    // A name of the same spelling in this crate and one below stays apart.
    assert_eq!(
        read(
            "use crate::x::Y; use mcpspec_harness::fuzz::strategy;\n\
             fn f(r: mcpspec_harness::RunReport) { mcpspec_harness::output::errln!(); }",
            1
        ),
        set(&["x", "harness::fuzz", "harness::report", "harness::output"])
    );
}
