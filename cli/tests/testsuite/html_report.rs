//! The HTML report (`run --html`, `report RUN.json --html`) as a reader meets it: in a real
//! browser. A small run against the embedded server with a fault is rendered, Chromium loads
//! the page headless (`--dump-dom`, after the page's script ran), and the DOM must hold every
//! check, the Fail's judged bubble and its schema violation marked, and the outcome filter
//! applied (the page clicks its own filters from `#show=fail`). A screenshot is saved as a test
//! artifact (`target/test-artifacts/html-report.png`).
//!
//! A second page holds one check of every outcome kind, written as a JSON report and rendered by
//! `mcpspec report`: in the browser each kind's check must carry its label and its colour, and
//! be shown under its own filter and hidden under every other.
//!
//! Chromium comes from `scripts/chromium.sh` (called by `scripts/test.sh`); where it cannot be
//! installed, the browser part is skipped with the script's reason printed, and the page is
//! still checked as text.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command as Std;

use assert_cmd::Command;
use mcpspec::Kind;

/// The check the fault breaks, and how: a `tools/call` result whose content has an unknown
/// type (SCHEMA-1, marked at `/result/content/0`).
const FAILING: &str = "schema/tools/structured-output";

fn mcpspec() -> Command {
    Command::cargo_bin("mcpspec").expect("the mcpspec binary is built")
}

fn scratch(name: &str) -> support::Scratch {
    support::Scratch::new(&format!("html-{name}"))
}

/// A small failing run: its JSON report and its HTML page.
fn failing_run(dir: &Path) -> (serde_json::Value, PathBuf) {
    let (json, html) = (dir.join("run.json"), dir.join("report.html"));
    mcpspec()
        .args(["run", "--fault", "content-unknown-type", "--probe-profile"])
        .args([
            "--allow-tool",
            "add",
            "--select",
            FAILING,
            "--select",
            "jsonrpc/id",
        ])
        .args(["--select", "modern/discover", "--select", "http/sse"])
        .arg("--json")
        .arg(&json)
        .arg("--html")
        .arg(&html)
        .assert()
        .code(1);
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (report, html)
}

fn ids(report: &serde_json::Value) -> Vec<String> {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The `<article>` of check `id` in `html`, up to its end tag.
fn article<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("id=\"check-{id}\""))
        .unwrap_or_else(|| panic!("no article for {id}"));
    let start = html[..start].rfind("<article").unwrap();
    let end = start + html[start..].find("</article>").unwrap();
    &html[start..end]
}

#[test]
fn the_page_is_self_contained_and_holds_every_check_and_the_failing_conversation() {
    let dir = scratch("text");
    let (report, html_path) = failing_run(&dir);
    let html = std::fs::read_to_string(&html_path).unwrap();
    // Nothing is fetched: no external script, style, image or font.
    for external in ["src=\"http", "href=\"http://", "<link", "@import", "url("] {
        assert!(!html.contains(external), "the page loads {external}");
    }
    for id in ids(&report) {
        article(&html, &id);
    }
    let fail = article(&html, FAILING);
    assert!(fail.contains("data-outcome=\"fail\""), "{fail}");
    assert!(
        fail.contains("class=\"bubble server judged violates\""),
        "{fail}"
    );
    assert!(fail.contains("<mark class=\"violation\">"), "{fail}");
    assert!(fail.contains("<h4>expected</h4>") && fail.contains("<h4>observed</h4>"));
    assert!(
        fail.contains("<b>SCHEMA-3</b>"),
        "the requirement text: {fail}"
    );
    assert!(
        html.contains("modern (server/discover)"),
        "the negotiation matrix"
    );
    // Rendered again from the JSON report: the same page (time offsets included); the exit
    // code is the report's own, as `run`'s was (a Fail: 1).
    let again = dir.join("again.html");
    mcpspec()
        .arg("report")
        .arg(dir.join("run.json"))
        .arg("--html")
        .arg(&again)
        .assert()
        .code(1);
    assert_eq!(std::fs::read_to_string(&again).unwrap(), html);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn report_refuses_a_file_that_is_not_a_run_report() {
    let dir = scratch("refuse");
    let path = dir.join("other.json");
    std::fs::write(&path, "{\"rows\": []}").unwrap();
    let out = mcpspec()
        .arg("report")
        .arg(&path)
        .args(["--html", "-"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("is not an mcpspec JSON report"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The browser, or why there is none.
fn chromium() -> Result<String, String> {
    let script = support::repo_root().join("scripts/chromium.sh");
    // Found, not installed: scripts/test.sh installs it before the tests run.
    let out = Std::new("bash")
        .arg(&script)
        .arg("--find-only")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    let path = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if out.status.success() && !path.is_empty() {
        Ok(path)
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
    }
}

/// Runs headless Chromium on `url` with `args`, killed after 60 s; its stdout.
fn headless(browser: &str, profile: &Path, args: &[&str], url: &str) -> String {
    let out = Std::new("timeout")
        .args(["--kill-after=5", "60", browser])
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
        ])
        .args(["--disable-extensions", "--disable-background-networking"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .output()
        .expect("timeout and the browser start");
    assert!(
        out.status.success(),
        "{browser} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn in_a_browser_every_check_is_there_the_fail_is_marked_and_the_filter_works() {
    let browser = match chromium() {
        Ok(path) => path,
        Err(why) => {
            println!("skipped: no Chromium here: {why}");
            return;
        }
    };
    let dir = scratch("browser");
    let (report, html_path) = failing_run(&dir);
    let ids = ids(&report);
    let url = format!("file://{}", html_path.display());
    let profile = dir.join("profile");

    // As loaded: every check shown.
    let dom = headless(&browser, &profile, &["--dump-dom"], &url);
    for id in &ids {
        let tag = article(&dom, id);
        assert!(
            !tag[..tag.find('>').unwrap()].contains(" hidden"),
            "{id}: {tag}"
        );
    }
    assert!(dom.contains(&format!("showing {} of {}", ids.len(), ids.len())));
    let fail = article(&dom, FAILING);
    assert!(fail.contains("bubble server judged violates"), "{fail}");
    assert!(fail.contains("<mark class=\"violation\">"), "{fail}");

    // `#show=fail`: the page unticks every other outcome's filter (a click each); only the Fail
    // stays, and the areas without a shown check are hidden.
    let dom = headless(
        &browser,
        &profile,
        &["--dump-dom"],
        &format!("{url}#show=fail"),
    );
    assert!(
        dom.contains(&format!("showing 1 of {}", ids.len())),
        "{dom}"
    );
    for id in &ids {
        let tag = article(&dom, id);
        let hidden = tag[..tag.find('>').unwrap()].contains(" hidden");
        assert_eq!(hidden, id != FAILING, "{id}: {tag}");
    }

    // The screenshot, kept as a test artifact.
    let artifacts = support::repo_root().join("target/test-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let png = artifacts.join("html-report.png");
    let _ = std::fs::remove_file(&png);
    headless(
        &browser,
        &profile,
        &[
            &format!("--screenshot={}", png.display()),
            "--window-size=1280,1400",
            "--hide-scrollbars",
        ],
        &format!("{url}#show=fail,pass"),
    );
    let bytes = std::fs::read(&png).expect("the screenshot was written");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 10_000);
    println!("screenshot: {}", png.display());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A JSON report with one check of every outcome kind (the first checks of the catalogue), and
/// its page as `mcpspec report` renders it.
fn every_kind_page(dir: &Path) -> PathBuf {
    use mcpspec_harness::report::{CheckResult, Negotiated, RunReport};
    let checks = mcpspec_harness::catalogue::all();
    let results = Kind::ALL
        .iter()
        .zip(&checks)
        .map(|(kind, check)| {
            let outcome = mcpspec::Outcome::new(*kind, format!("a verdict of kind {kind:?}"));
            CheckResult::new(check, outcome, std::time::Duration::from_millis(3), vec![])
        })
        .collect();
    let report = RunReport::new(
        &mcpspec::Target::command("./my-server"),
        Negotiated::from_facts(&mcpspec_harness::check::Facts::default()),
        results,
        std::time::Duration::from_millis(20),
    );
    let (json, html) = (dir.join("kinds.json"), dir.join("kinds.html"));
    std::fs::write(&json, report.to_json()).unwrap();
    // A Fail and an Error: the report fails, as the run would have.
    mcpspec()
        .arg("report")
        .arg(&json)
        .arg("--html")
        .arg(&html)
        .assert()
        .code(1);
    html
}

/// Each kind's colour in the page's stylesheet (`--non_strict:#ef6c00`), as the browser
/// computes it (`rgb(239, 108, 0)`).
fn stylesheet_colour(kind: Kind) -> String {
    let css =
        std::fs::read_to_string(support::repo_root().join("harness/src/report/html/report.css"))
            .unwrap();
    let var = format!("--{}:#", kind.key());
    let at = css
        .find(&var)
        .unwrap_or_else(|| panic!("no {var} in the CSS"))
        + var.len();
    let hex = &css[at..at + 6];
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap();
    format!("rgb({}, {}, {})", byte(0), byte(2), byte(4))
}

/// What the browser shows, read by a script appended to a copy of the page after the page's
/// own: per kind its check's label, badge colour, border colour, whether it is open and shown
/// as loaded; per filter (each ticked alone, by a click) the kinds still shown.
const PROBE: &str = r#"<script>(function () {
  var out = {};
  var arts = Array.prototype.slice.call(document.querySelectorAll('article.check'));
  var boxes = Array.prototype.slice.call(document.querySelectorAll('input.filter'));
  arts.forEach(function (a) {
    var badge = a.querySelector('summary .badge');
    out[a.getAttribute('data-outcome')] = {
      label: badge.textContent,
      badge: getComputedStyle(badge).backgroundColor,
      border: getComputedStyle(a).borderLeftColor,
      open: a.querySelector('details').open,
      shown: a.offsetParent !== null
    };
  });
  boxes.forEach(function (only) {
    boxes.forEach(function (b) { if ((b === only) !== b.checked) { b.click(); } });
    out['filter ' + only.value] = arts.filter(function (a) { return a.offsetParent !== null; })
      .map(function (a) { return a.getAttribute('data-outcome'); });
  });
  var pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();</script>"#;

#[test]
fn in_a_browser_every_kind_is_labelled_coloured_and_shown_under_its_own_filter() {
    let dir = scratch("kinds");
    let html_path = every_kind_page(&dir);
    let html = std::fs::read_to_string(&html_path).unwrap();
    // As text: one article per kind, with the kind's one spelling and its label.
    for kind in Kind::ALL {
        let key = kind.key();
        assert!(
            html.contains(&format!("data-outcome=\"{key}\"")),
            "no check of kind {key}"
        );
        assert!(
            html.contains(&format!(
                "<span class=\"badge k-{key}\">{}</span>",
                kind.label()
            )),
            "{key} is not labelled {}",
            kind.label()
        );
        assert!(
            html.contains(&format!("id=\"filter-{key}\" value=\"{key}\"")),
            "no filter for {key}"
        );
    }
    let browser = match chromium() {
        Ok(path) => path,
        Err(why) => {
            println!("skipped: no Chromium here: {why}");
            return;
        }
    };
    let profile = dir.join("profile");
    let probed = dir.join("kinds-probed.html");
    std::fs::write(&probed, html.replace("</body>", &format!("{PROBE}</body>"))).unwrap();
    let dom = headless(
        &browser,
        &profile,
        &["--dump-dom"],
        &format!("file://{}", probed.display()),
    );
    let start = dom.find("<pre id=\"probe\">").expect("the probe ran") + "<pre id=\"probe\">".len();
    let text = &dom[start..start + dom[start..].find("</pre>").unwrap()];
    let text = text
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let seen: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut colours = std::collections::BTreeSet::new();
    for kind in Kind::ALL {
        let key = kind.key();
        let check = &seen[key];
        assert_eq!(check["label"], kind.label(), "{key}: {seen}");
        assert_eq!(check["badge"], stylesheet_colour(kind), "{key}: {seen}");
        assert_eq!(check["shown"], true, "{key} is hidden as loaded: {seen}");
        let opened = matches!(kind, Kind::Fail | Kind::Error | Kind::NonStrict);
        assert_eq!(check["open"], opened, "{key}: {seen}");
        if opened {
            assert_eq!(check["border"], stylesheet_colour(kind), "{key}: {seen}");
        }
        assert_eq!(
            seen[format!("filter {key}")],
            serde_json::json!([key]),
            "under the {key} filter alone: {seen}"
        );
        colours.insert(check["badge"].as_str().unwrap().to_owned());
    }
    assert_eq!(
        colours.len(),
        Kind::ALL.len(),
        "two kinds share a colour: {seen}"
    );

    // The page's own `#show=` (as a link would open it): the NonStrict check alone.
    let dom = headless(
        &browser,
        &profile,
        &["--dump-dom"],
        &format!("file://{}#show=non_strict", html_path.display()),
    );
    assert!(dom.contains("showing 1 of 6"), "{dom}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The matrix page (`mcpspec matrix`) in a browser: its script runs, every requirement row is
/// shown as loaded, and `#show=not_met` keeps exactly the requirements some target did not meet.
/// The page is the published scorecard's, rendered from `docs/scorecard.json`.
#[test]
fn in_a_browser_the_matrix_page_runs_and_its_filter_keeps_what_is_not_met() {
    use mcpspec::cli::matrix::{html, model::Matrix};
    let browser = match chromium() {
        Ok(path) => path,
        Err(why) => {
            println!("skipped: no Chromium here: {why}");
            return;
        }
    };
    let dir = scratch("matrix-browser");
    let text = std::fs::read_to_string(support::repo_root().join("docs/scorecard.json")).unwrap();
    let matrix: Matrix = serde_json::from_str(&text).unwrap();
    let page = dir.join("matrix.html");
    std::fs::write(&page, html::render(&matrix)).unwrap();
    let url = format!("file://{}", page.display());
    let profile = dir.join("profile");
    let total = matrix.requirements.len();
    let not_met = matrix
        .requirements
        .iter()
        .filter(|row| {
            matrix.targets.iter().any(|t| {
                t.role == row.role && t.revisions.values().any(|s| s.not_met.contains(&row.id))
            })
        })
        .count();
    assert!(0 < not_met && not_met < total, "{not_met} of {total}");

    let dom = headless(&browser, &profile, &["--dump-dom"], &url);
    assert!(
        dom.contains("data-ready=\"1\""),
        "the page's script did not run"
    );
    assert!(
        dom.contains(&format!("showing {total} of {total} requirements")),
        "{dom}"
    );
    let dom = headless(
        &browser,
        &profile,
        &["--dump-dom"],
        &format!("{url}#show=not_met"),
    );
    assert!(
        dom.contains(&format!("showing {not_met} of {total} requirements")),
        "{dom}"
    );
}
