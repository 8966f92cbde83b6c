//! The README's claims about the catalogue that a newcomer relies on: every area `mcpspec list`
//! shows is in the table of "What is checked", and every probe-profile tool mcpspec calls is
//! documented with what it must do.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

fn readme() -> String {
    std::fs::read_to_string(support::repo_root().join("README.md")).unwrap()
}

/// The README's section `heading`, up to the next heading of the same level.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text
        .find(heading)
        .unwrap_or_else(|| panic!("no section {heading}"));
    let level = heading.split(' ').next().unwrap();
    let rest = &text[start + heading.len()..];
    let end = rest
        .find(&format!("\n{level} "))
        .map_or(rest.len(), |i| i + 1);
    &rest[..end]
}

#[test]
fn every_area_of_the_catalogue_is_in_the_readme_table() {
    let text = readme();
    let table = section(&text, "## What is checked");
    let mut areas: Vec<&str> = mcpspec::catalogue::all()
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
        "areas missing from the README table: {missing:?}"
    );
}

#[test]
fn every_probe_tool_is_documented() {
    use mcpspec::protocol::tool;
    let text = readme();
    let tools = section(&text, "### The probe tools");
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
            "{name} is not in the README's probe tools table"
        );
    }
}
