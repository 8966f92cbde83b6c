//! The harness's layers (ARCHITECTURE.md, "The harness's layers, tested"): every module of the
//! library imports of the crate only what its row of that table allows, and the table has no
//! cycle, so imports point one way.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support;

/// The macros of `output.rs`, which a module uses as `crate::errln!`.
const OUTPUT_MACROS: [&str; 4] = ["errln", "outln", "out", "err"];

/// The table: module → what it may import.
fn documented() -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(support::repo_root().join("ARCHITECTURE.md")).unwrap();
    let section = text
        .split("## The harness's layers, tested")
        .nth(1)
        .expect("ARCHITECTURE.md has the layers section");
    let section = section.split("\n## ").next().unwrap();
    let mut table = BTreeMap::new();
    for row in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        let names = |cell: &str| -> BTreeSet<String> {
            cell.split(',')
                .filter_map(|n| {
                    n.trim()
                        .strip_prefix('`')?
                        .strip_suffix('`')
                        .map(str::to_owned)
                })
                .collect()
        };
        let module = names(cells[0]).into_iter().next().unwrap();
        table.insert(module, names(cells[1]));
    }
    assert!(table.len() > 20, "the table lists the modules: {table:?}");
    table
}

/// The source files of top-level module `name`: `name.rs` and everything under `name/`, test
/// files aside.
fn files_of(src: &Path, name: &str) -> Vec<PathBuf> {
    let mut files = vec![src.join(format!("{name}.rs"))];
    let mut dirs = vec![src.join(name)];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "tests") {
                    dirs.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs")
                && path.file_name().is_some_and(|n| n != "tests.rs")
            {
                files.push(path);
            }
        }
    }
    files
}

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The crate's top-level modules `code` names: `crate::x…` paths and `use crate::{x, y::z}`.
/// Types the crate root re-exports (`crate::RunReport`) are the façade, not a module.
fn imports(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level names of the group: after `{` and after each comma at depth 0.
            let mut depth = 0;
            let mut expect_name = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => expect_name = true,
                    c if expect_name && (c.is_ascii_lowercase() || c == '_') => {
                        found.insert(ident(&group[i..]).to_owned());
                        expect_name = false;
                    }
                    c if expect_name && c.is_ascii_uppercase() => expect_name = false,
                    _ => {}
                }
            }
        } else if rest.starts_with(|c: char| c.is_ascii_lowercase() || c == '_') {
            found.insert(ident(rest).to_owned());
        }
    }
    found
}

/// `code` without its test module and its comments.
fn production(code: &str) -> String {
    let code = code.split("#[cfg(test)]").next().unwrap();
    code.lines()
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

fn actual(src: &Path, modules: &BTreeSet<String>) -> BTreeMap<String, BTreeSet<String>> {
    modules
        .iter()
        .map(|m| {
            let mut used = BTreeSet::new();
            for file in files_of(src, m) {
                let code = std::fs::read_to_string(&file).unwrap();
                for name in imports(&production(&code)) {
                    let name = if OUTPUT_MACROS.contains(&name.as_str()) {
                        "output".to_owned()
                    } else {
                        name
                    };
                    if &name != m && !name.is_empty() {
                        used.insert(name);
                    }
                }
            }
            (m.clone(), used)
        })
        .collect()
}

/// The library's top-level modules: `src/*.rs` but the crate roots and `cli` (the command line,
/// the top of the library, which may import anything).
fn library_modules(src: &Path) -> BTreeSet<String> {
    std::fs::read_dir(src)
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            let name = path.file_stem()?.to_str()?.to_owned();
            (path.extension().is_some_and(|x| x == "rs")
                && !["lib", "main", "cli"].contains(&name.as_str()))
            .then_some(name)
        })
        .collect()
}

#[test]
fn every_module_imports_only_what_the_architecture_allows() {
    let src = support::repo_root().join("harness/src");
    let table = documented();
    let modules = library_modules(&src);
    let undocumented: Vec<&String> = modules.iter().filter(|m| !table.contains_key(*m)).collect();
    assert!(
        undocumented.is_empty(),
        "modules missing from ARCHITECTURE.md's layers table: {undocumented:?}"
    );
    let stale: Vec<&String> = table.keys().filter(|m| !modules.contains(*m)).collect();
    assert!(
        stale.is_empty(),
        "the table names modules that do not exist: {stale:?}"
    );
    let mut violations = Vec::new();
    for (module, used) in actual(&src, &modules) {
        for name in used.difference(&table[&module]) {
            violations.push(format!("{module} imports {name}"));
        }
    }
    assert!(
        violations.is_empty(),
        "imports the layers table does not allow (ARCHITECTURE.md):\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_layers_have_no_cycle() {
    let table = documented();
    // Kahn's algorithm: repeatedly remove the modules that import nothing left.
    let mut left = table.clone();
    while !left.is_empty() {
        let free: Vec<String> = left
            .iter()
            .filter(|(_, deps)| deps.iter().all(|d| !left.contains_key(d)))
            .map(|(m, _)| m.clone())
            .collect();
        assert!(
            !free.is_empty(),
            "the layers table has a cycle among {:?}",
            left.keys().collect::<Vec<_>>()
        );
        for m in free {
            left.remove(&m);
        }
    }
}

/// The scanner sees an import in each form the code writes one, and no import in a comment or
/// a test module.
#[test]
fn the_scanner_reads_every_form_of_import() {
    let code = "use crate::driver::{Peer, request};\nuse crate::{outcome::Kind, text, wire::{self, Frame}};\n\
                fn f() { crate::errln!(\"x\"); let _ = crate::pool::Mode::Shared; }\n\
                fn g(r: &crate::RunReport) {}\n\
                // crate::runner in a comment\n#[cfg(test)]\nmod tests { use crate::report; }";
    let found = imports(&production(code));
    let expected: BTreeSet<String> = ["driver", "outcome", "text", "wire", "errln", "pool"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(found, expected);
}
