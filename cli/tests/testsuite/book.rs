//! The book (`docs/`) against the code, for what a reader relies on: every area `mcpspec list`
//! shows is in the table of "What is checked"; every probe-profile tool mcpspec calls is
//! documented with what it must do; the check reference is what the catalogue generates,
//! requirement texts included; every policy the code cites has its section, under the title the
//! code gives it, and `mcpspec explain` links to it; every flag of every subcommand is in the
//! reference; and the flags said to change the run without a target are exactly those that do.

use crate::support;

use std::io::BufRead;
use std::time::Duration;

use assert_cmd::Command;

fn page(name: &str) -> String {
    let path = support::repo_root().join("docs").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The section `heading` of `text`, up to the next heading of the same level or above.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("no section {heading}"))
        + 1;
    let level = heading.split(' ').next().unwrap().len();
    let rest = &text[start + heading.len()..];
    let end = rest
        .match_indices("\n#")
        .find(|(i, _)| {
            let hashes = rest[i + 1..].chars().take_while(|c| *c == '#').count();
            hashes <= level && rest[i + 1 + hashes..].starts_with(' ')
        })
        .map_or(rest.len(), |(i, _)| i + 1);
    &rest[..end]
}

fn mcpspec() -> Command {
    Command::cargo_bin("mcpspec").expect("the mcpspec binary is built")
}

#[test]
fn every_area_of_the_catalogue_is_in_the_checks_table() {
    let text = page("checks.md");
    let table = section(&text, "## What is checked");
    let mut areas: Vec<&str> = mcpspec_harness::catalogue::all()
        .iter()
        .map(|c| c.id.split('/').next().unwrap())
        .collect();
    areas.dedup();
    let missing: Vec<&&str> = areas
        .iter()
        .filter(|a| !table.contains(&format!("`{a}/*`")))
        .collect();
    assert!(
        missing.is_empty(),
        "areas missing from the table of docs/checks.md: {missing:?}"
    );
}

#[test]
fn every_probe_tool_is_documented() {
    use mcpspec_core::protocol::tool;
    let text = page("probe-profile.md");
    let tools = section(&text, "## The probe tools");
    for name in [
        tool::PROBE_LOG,
        tool::SLOW,
        tool::TRIGGER_LIST_CHANGED,
        tool::TRIGGER_RESOURCE_UPDATED,
        tool::END_SUBSCRIPTIONS,
        tool::LOG_DEMO,
        tool::CONFIRM,
    ] {
        assert!(
            tools.contains(&format!("| `{name}` |")),
            "{name} is not in the probe tools table of docs/probe-profile.md"
        );
    }
}

/// `docs/reference.md` is what `mcpspec list --markdown` writes from this catalogue; and so
/// every requirement id of both catalogues is there with its level and its text.
#[test]
fn the_check_reference_is_the_catalogue_and_quotes_every_requirement() {
    let committed = page("reference.md");
    let generated = mcpspec::check_reference::markdown(
        &mcpspec_harness::catalogue::all(),
        &mcpspec_client::checks::all(),
    );
    assert!(
        committed == generated,
        "docs/reference.md differs from the catalogue: run `cargo run -p mcpspec -- list \
         --markdown docs/reference.md` and commit it"
    );
    let out = mcpspec().args(["list", "--markdown", "-"]).assert().code(0);
    assert_eq!(String::from_utf8_lossy(&out.get_output().stdout), generated);
    let requirements = mcpspec_harness::requirements::catalogue()
        .values()
        .chain(mcpspec_harness::requirements::client_catalogue().values());
    let mut n = 0;
    for r in requirements {
        let quoted = section(&committed, &format!("### {}", r.id));
        assert!(
            quoted.contains(&format!("**{}**", r.level))
                && quoted.contains(&r.text.replace('<', "&lt;")),
            "{} is not quoted with its level and text: {quoted}",
            r.id
        );
        n += 1;
    }
    assert_eq!(n, 131, "112 server and 19 client requirements");
}

/// Each policy of the code is one section `## POL-n` of `docs/policies.md`, in order, opening
/// with the code's title; the page has no other; `mcpspec explain` points at the section.
#[test]
fn every_policy_has_its_section_and_explain_links_to_it() {
    let text = page("policies.md");
    let headings: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("## ")).collect();
    let ids: Vec<&str> = mcpspec_harness::requirements::POLICIES
        .iter()
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(headings, ids, "the sections of docs/policies.md");
    for (id, title) in mcpspec_harness::requirements::POLICIES {
        let body = section(&text, &format!("## {id}"));
        let opening = body.trim_start().lines().next().unwrap_or_default();
        assert!(
            opening
                .to_lowercase()
                .starts_with(&format!("**{}.**", title.to_lowercase())),
            "{id} opens with {opening:?}, not the title {title:?}"
        );
    }
    assert_eq!(
        mcpspec_harness::requirements::POLICIES_PAGE,
        "docs/policies.md",
        "the page explain names"
    );
    // A check that applies three policies: explain names each with its section.
    let out = mcpspec()
        .args(["explain", "jsonrpc/parse-error/replies-32700"])
        .assert()
        .code(0);
    let explained = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    for id in ["POL-3", "POL-28"] {
        let link = format!(
            "({}#{})",
            mcpspec_harness::requirements::POLICIES_PAGE,
            id.to_lowercase()
        );
        assert!(explained.contains(&link), "{link} in {explained}");
        assert!(headings.contains(&id), "{id} has no section");
    }
}

/// The `--flags` of `mcpspec SUBCOMMAND --help`.
fn flags(subcommand: &[&str]) -> Vec<String> {
    let out = mcpspec().args(subcommand).arg("--help").assert().code(0);
    let help = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let mut flags: Vec<String> = help
        .lines()
        .filter_map(|l| {
            let l = l.trim_start().trim_start_matches("-h, ");
            let flag = l.strip_prefix("--")?.split([' ', ',', '=', '[']).next()?;
            (!flag.is_empty()).then(|| format!("--{flag}"))
        })
        .filter(|f| f != "--help" && f != "--version")
        .collect();
    flags.dedup();
    flags
}

/// Every flag of every subcommand is in the book: on its subcommand's page, or in the
/// command-line reference (the target flags, `--color`).
#[test]
fn every_flag_of_every_subcommand_is_in_the_book() {
    let cli = page("cli.md");
    let pages: &[(&[&str], &str)] = &[
        (&["run"], "cli.md"),
        (&["negotiate"], "cli.md"),
        (&["list"], "cli.md"),
        (&["coverage"], "cli.md"),
        (&["report"], "cli.md"),
        (&["baseline"], "cli.md"),
        (&["fuzz"], "fuzzing.md"),
        (&["replay"], "fuzzing.md"),
        (&["client"], "testing-clients.md"),
        (&["client", "fuzz"], "testing-clients.md"),
        (&["client", "replay"], "testing-clients.md"),
        (&["auth", "issuer"], "protected-servers.md"),
    ];
    let mut missing = Vec::new();
    for (subcommand, name) in pages {
        let own = page(name);
        for flag in flags(subcommand) {
            let named = format!("`{flag}");
            if !own.contains(&named) && !cli.contains(&named) {
                missing.push(format!(
                    "mcpspec {} {flag} (docs/{name})",
                    subcommand.join(" ")
                ));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "flags the book does not name: {missing:#?}"
    );
}

/// The reference server over HTTP on a loopback port, killed when dropped.
struct HttpReference(std::process::Child, String);

impl HttpReference {
    fn start() -> HttpReference {
        let mut child = std::process::Command::new(support::reference_binary())
            .args(["--http", "127.0.0.1:0"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = std::io::BufReader::new(stderr).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(Duration::from_secs(20)).unwrap_or_default();
        let url = line.trim().strip_prefix("listening on ").map(str::to_owned);
        let server = HttpReference(child, url.clone().unwrap_or_default());
        assert!(
            url.is_some(),
            "the reference server announced no URL: {line:?}"
        );
        server
    }
}

impl Drop for HttpReference {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The flags in the table of "The run without a target" each make a run that is not the
/// default one (stdio + HTTP); `--replicas N`, which the page says keeps it, does not.
#[test]
fn the_flags_listed_as_changing_the_run_without_a_target_are_the_ones_that_do() {
    let text = page("cli.md");
    let table = section(&text, "## The run without a target");
    let listed: Vec<&str> = table
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .collect();
    assert_eq!(
        listed,
        [
            "-- COMMAND",
            "--url URL",
            "--fault NAME",
            "--eras MODE",
            "--spawn-http CMD"
        ]
    );
    let bin = support::reference_binary().display().to_string();
    let http = HttpReference::start();
    let spawn = format!("{bin} --http 127.0.0.1:{{port}}");
    let runs: [(&str, Vec<&str>); 6] = [
        ("-- COMMAND", vec!["--", &bin]),
        ("--url URL", vec!["--url", &http.1]),
        ("--fault NAME", vec!["--fault", "parse-error-silent"]),
        ("--eras MODE", vec!["--eras", "both"]),
        (
            "--spawn-http CMD",
            vec!["--replicas", "2", "--spawn-http", &spawn],
        ),
        ("--replicas N", vec!["--replicas", "2"]),
    ];
    for (flag, args) in runs {
        let out = mcpspec()
            .args(["run", "--select", "jsonrpc/id/string-echoed", "--json", "-"])
            .args(&args)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{flag}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        let default = report["transport"] == "stdio + http";
        assert_eq!(
            default,
            flag == "--replicas N",
            "{flag}: {}",
            report["transport"]
        );
    }
}
