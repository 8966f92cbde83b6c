//! `DIR/matrix.md`: the matrix in GitHub-flavoured Markdown, for a CI step summary
//! (`$GITHUB_STEP_SUMMARY`). Small by design, whatever the number of targets: the tier table
//! (per revision the pass rate and the met / not met / not verified counts), then per target
//! its not-met MUST requirements, revisions with the same list together, each requirement as
//! its id and its text shortened, at most [`MAX_LISTED`] per list. Rendered from the [`Matrix`]
//! alone and deterministic. Text from the matrix is escaped so that it reads as text.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::model::{Column, Matrix, RequirementRow, Role};

/// The most not-met requirements listed for a target at a revision; the rest are counted.
const MAX_LISTED: usize = 25;

/// How many characters of a requirement's text are kept.
const TEXT_CHARS: usize = 72;

/// The requirement rows by role and id.
type Rows<'a> = BTreeMap<(Role, &'a str), &'a RequirementRow>;

/// The Markdown for `m`.
pub fn render(m: &Matrix) -> String {
    let mut out = String::with_capacity(8 * 1024);
    out.push_str("## mcpspec matrix\n\n");
    tier_table(&mut out, m);
    not_met(&mut out, m);
    out
}

fn tier_table(out: &mut String, m: &Matrix) {
    if m.targets.is_empty() {
        out.push_str("No targets.\n");
        return;
    }
    out.push_str("| target | role | tier |");
    for rev in &m.revisions {
        let _ = write!(out, " {} |", esc(rev));
    }
    out.push_str(" kept from the next tier by |\n|---|---|---|");
    for _ in &m.revisions {
        out.push_str("---|");
    }
    out.push_str("---|\n");
    for t in &m.targets {
        let mut name = format!("**{}**", esc(&t.name));
        if let Some(label) = &t.label {
            let _ = write!(name, " {}", esc(label));
        }
        let tier = match (t.tier, &t.error) {
            (Some(tier), _) => format!("Tier {tier}"),
            (None, Some(why)) => format!("not run: {}", esc(why)),
            (None, None) => "not run".into(),
        };
        let _ = write!(out, "| {name} | {} | {tier} |", t.role.as_str());
        for rev in &m.revisions {
            match t.revisions.get(rev) {
                Some(s) => {
                    let _ = write!(
                        out,
                        " {} · {}/{}/{} |",
                        s.rate_text(),
                        s.met.len(),
                        s.not_met.len(),
                        s.not_verified.len()
                    );
                }
                None => out.push_str(" — |"),
            }
        }
        let kept: Vec<String> = t.kept_from_next.iter().map(|k| esc(k)).collect();
        let _ = writeln!(out, " {} |", kept.join("<br>"));
    }
    out.push_str("\nPer revision: pass rate · requirements met/not met/not verified.\n");
}

/// Per target, the MUST requirements it did not meet, revisions with the same list together.
fn not_met(out: &mut String, m: &Matrix) {
    let rows: Rows = m
        .requirements
        .iter()
        .map(|r| ((r.role, r.id.as_str()), r))
        .collect();
    let mut wrote_heading = false;
    // A target that was not run has every requirement not met: its reason says it all.
    for t in m.targets.iter().filter(|t| t.error.is_none()) {
        let lists = must_lists(t, m, &rows);
        if lists.is_empty() {
            continue;
        }
        if !wrote_heading {
            out.push_str("\n### Not-met MUST requirements\n");
            wrote_heading = true;
        }
        let _ = writeln!(out, "\n**{}** ({})", esc(&t.name), t.role.as_str());
        for (revs, ids) in lists {
            let _ = writeln!(out, "- {} ({}):", revs.join(", "), ids.len());
            for id in ids.iter().take(MAX_LISTED) {
                match rows.get(&(t.role, id.as_str())) {
                    Some(row) => {
                        let _ = writeln!(out, "  - {} {}", code(id), esc(&shorten(&row.text)));
                    }
                    None => {
                        let _ = writeln!(out, "  - {}", code(id));
                    }
                }
            }
            if ids.len() > MAX_LISTED {
                let _ = writeln!(
                    out,
                    "  - … and {} more (matrix.html)",
                    ids.len() - MAX_LISTED
                );
            }
        }
    }
}

/// `(revisions, not-met MUST ids)`, in the matrix's revision order, revisions with the same
/// ids together; revisions with none left out.
fn must_lists(t: &Column, m: &Matrix, rows: &Rows) -> Vec<(Vec<String>, Vec<String>)> {
    let mut lists: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    for rev in &m.revisions {
        let Some(score) = t.revisions.get(rev) else {
            continue;
        };
        let ids: Vec<String> = score
            .not_met
            .iter()
            .filter(|id| {
                // A MUST by the row's words, and at this revision (SCHEMA-2 became one).
                rows.get(&(t.role, id.as_str()))
                    .is_some_and(|row| row.level.starts_with("MUST"))
                    && mcpspec_harness::requirements::requirement(id)
                        .is_none_or(|r| r.is_must_at(rev))
            })
            .cloned()
            .collect();
        if ids.is_empty() {
            continue;
        }
        match lists.iter_mut().find(|(_, same)| *same == ids) {
            Some((revs, _)) => revs.push(esc(rev)),
            None => lists.push((vec![esc(rev)], ids)),
        }
    }
    lists
}

/// The first [`TEXT_CHARS`] characters of `text` (on one line), cut at a word with "…".
fn shorten(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= TEXT_CHARS {
        return one_line;
    }
    let cut: String = one_line.chars().take(TEXT_CHARS).collect();
    let at_word = cut
        .rfind(' ')
        .filter(|at| *at > TEXT_CHARS / 2)
        .unwrap_or(cut.len());
    format!("{}…", cut[..at_word].trim_end_matches([',', ';', ':', '.']))
}

/// An id as inline code, or escaped text where a backtick or a pipe would break the span.
fn code(id: &str) -> String {
    if id.contains(['`', '|', '\n']) {
        esc(id)
    } else {
        format!("`{id}`")
    }
}

/// Escapes text so Markdown (and a table cell) reads it as text: the inline punctuation is
/// backslash-escaped and line breaks become spaces.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '&' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::html::tests::sample;
    use super::super::model::RevisionScore;
    use super::*;

    #[test]
    fn the_tier_table_has_rates_counts_tiers_and_what_kept_each_target() {
        let md = render(&sample());
        let expected = "\
| target | role | tier | 2025-11-25 | 2025-06-18 | kept from the next tier by |
|---|---|---|---|---|---|
| **alpha** \\<b\\>Alpha\\</b\\> \\& co | server | Tier 2 | 66.6% · 1/1/1 | 100% · 2/0/0 | 2025-11-25: RPC-2 not met |
| **broken** | server | not run: could not start: \\`./srv\\` \\<not found\\> | — | — |  |
| **cli** | client | Tier 1 | 100% · 1/0/0 | 99.9% · 1/0/0 |  |
";
        assert!(md.contains(expected), "{md}");
    }

    #[test]
    fn not_met_must_requirements_are_listed_per_target_with_their_text_shortened() {
        let mut m = sample();
        // A SHOULD requirement not met is left out; revisions with the same list go together.
        let long = "word ".repeat(40);
        m.requirements[2].text = long.clone();
        let alpha = &mut m.targets[0];
        for score in alpha.revisions.values_mut() {
            score.not_met = vec!["RPC-2".into(), "HTTP-1".into()];
        }
        let md = render(&m);
        let section = &md[md.find("### Not-met MUST requirements").expect(&md)..];
        let expected = format!(
            "\n**alpha** (server)\n- 2025-11-25, 2025-06-18 (1):\n  - `RPC-2` {}…\n",
            "word ".repeat(14).trim_end()
        );
        assert!(section.contains(&expected), "{section}");
        assert!(!section.contains("HTTP-1"), "{section}");
        assert!(!section.contains("**cli**"), "{section}");
        assert!(!section.contains(&long));
    }

    #[test]
    fn a_matrix_with_no_not_met_must_has_no_such_section_and_the_rest_is_escaped() {
        let mut m = sample();
        for t in &mut m.targets {
            for s in t.revisions.values_mut() {
                s.not_met.clear();
            }
        }
        let md = render(&m);
        assert!(!md.contains("Not-met"), "{md}");
        assert_eq!(esc("a|b <c> *d* `e`\nf"), "a\\|b \\<c\\> \\*d\\* \\`e\\` f");
        assert_eq!(code("RPC-1"), "`RPC-1`");
        assert_eq!(code("a|b"), "a\\|b");
    }

    #[test]
    fn a_revision_not_served_says_so_in_place_of_its_pass_rate() {
        let mut m = sample();
        let alpha = &mut m.targets[0];
        let score = alpha.revisions.values_mut().next().expect("a revision");
        score.not_served = Some("the server does not serve it".into());
        let md = render(&m);
        assert!(md.contains("| not served · "), "{md}");
        let page = crate::cli::matrix::html::render(&m);
        assert!(
            page.contains("<b title=\"the server does not serve it\">not served</b>"),
            "{page}"
        );
    }

    #[test]
    fn twenty_targets_with_everything_failing_stay_small_and_the_same() {
        let mut m = sample();
        // Ids the catalogue does not hold: the rows alone say they are MUSTs.
        let ids: Vec<String> = (0..120).map(|i| format!("ZZZ-{i}")).collect();
        for id in &ids {
            let mut row = m.requirements[1].clone();
            row.id = id.clone();
            row.text = "x".repeat(400);
            m.requirements.push(row);
        }
        let template = m.targets[0].clone();
        m.targets = (0..20)
            .map(|i| {
                let mut t = template.clone();
                t.name = format!("target-{i}");
                t.kept_from_next =
                    vec!["kept by something fairly long, once per revision".into(); 3];
                t.role = Role::Server;
                t.revisions = m
                    .revisions
                    .iter()
                    .enumerate()
                    .map(|(r, rev)| {
                        let not_met = ids.iter().skip(r).cloned().collect();
                        let score = RevisionScore {
                            pass_rate: 0.1,
                            met: vec![],
                            not_met,
                            not_verified: vec![],
                            not_served: None,
                            report: None,
                            transcripts: None,
                        };
                        (rev.clone(), score)
                    })
                    .collect();
                t
            })
            .collect();
        let md = render(&m);
        assert!(md.len() < 200 * 1024, "{} bytes", md.len());
        assert!(md.contains("  - … and 95 more (matrix.html)\n"), "{md}");
        assert_eq!(md, render(&m.clone()));
    }
}
