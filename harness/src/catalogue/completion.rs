//! `completion/complete/prompt-argument` and `completion/complete/template-variable` (FEAT-7;
//! POL-31): a server that declares `completions` is asked to complete every argument of its
//! listed prompts and every variable of its listed templates (with an empty value: every
//! candidate), up to `--max-items` requests each, and each answer is judged. In either era
//! (POL-28).

use serde_json::{Map, Value, json};

use super::prelude::*;
use super::surface::{self, Tally};
use super::uri_template::Template;
use crate::outcome::Kind;

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "completion/complete/prompt-argument",
            requirements: &["FEAT-7", "SCHEMA-1", "POL-28", "POL-31"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[
                Need::AnyEra,
                Need::Capability("completions"),
                Need::Capability("prompts"),
            ],
            description: "`completion/complete` for each argument of each listed prompt \
                          (`ref/prompt`, an empty value), up to --max-items requests.",
            expectation: "a result with `completion.values` (strings, at most 100), `total` an \
                          integer not below the number of values and `hasMore` a boolean when \
                          present",
            faults: &[
                "completion-total-below-count",
                "completion-values-not-strings",
            ],
            script: |s| Box::pin(prompt_arguments(s)),
        },
        Check {
            id: "completion/complete/template-variable",
            requirements: &["FEAT-7", "FEAT-5", "SCHEMA-1", "POL-28", "POL-31"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[
                Need::AnyEra,
                Need::Capability("completions"),
                Need::Capability("resources"),
            ],
            description: "`completion/complete` for each variable of each listed resource \
                          template (`ref/resource`, an empty value), up to --max-items requests.",
            expectation: "a result with `completion.values` (strings, at most 100), `total` an \
                          integer not below the number of values and `hasMore` a boolean when \
                          present",
            faults: &[
                "completion-total-below-count",
                "template-completion-internal-error",
                "completion-total-below-count --eras legacy",
            ],
            script: |s| Box::pin(template_variables(s)),
        },
    ]
}

/// One completion request judged into `tally`; `false` when the server stopped answering.
async fn judge_one(
    s: &Scenario,
    peer: &mut Peer,
    tally: &mut Tally,
    item: String,
    reference: Value,
    argument: &str,
) -> bool {
    let reply = peer
        .call(surface::complete(reference, argument, &Map::new()))
        .await;
    let schema = surface::violations(&s.take_schema_findings());
    let Some(result) = reply.result() else {
        tally.unanswered(
            item,
            Kind::Fail,
            format!(
                "got {}; FEAT-7: a server that declares `completions` completes its own \
                 arguments",
                reply.describe()
            ),
            schema,
            reply.evidence(),
        );
        return reply.error().is_some();
    };
    let values = surface::completion_values(result);
    let mut problems = surface::completion_problems(result);
    problems.extend(schema);
    tally.judge(
        item,
        problems,
        format!("{} value(s){}", values.len(), sample(&values)),
        reply.evidence(),
    );
    true
}

/// The first few values, for a pass message.
fn sample(values: &[String]) -> String {
    if values.is_empty() {
        return String::new();
    }
    let shown: Vec<&str> = values.iter().take(3).map(String::as_str).collect();
    format!(
        ": {}{}",
        shown.join(", "),
        if values.len() > 3 { ", …" } else { "" }
    )
}

async fn prompt_arguments(s: &mut Scenario) -> Verdict {
    surface::require(s, &["completions", "prompts"])?;
    let max = s.options().max_items;
    let mut peer = s.connect_any_era().await?;
    let walk = surface::walk(s, &mut peer, method::PROMPTS_LIST, "prompts", Some(max))
        .await
        .map_err(|f| f.fail())?;
    let mut tally = Tally::new("prompt arguments", "FEAT-7");
    walk.record_findings(&mut tally);
    let mut asked = Vec::new();
    for (_, prompt) in walk.items() {
        let Some(name) = surface::string_member(prompt, "name") else {
            continue;
        };
        for argument in prompt
            .get("arguments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|a| surface::string_member(a, "name"))
        {
            asked.push((name.to_owned(), argument.to_owned()));
        }
    }
    for (name, argument) in asked.into_iter().take(max) {
        let item = format!("prompt `{name}` argument `{argument}`");
        let reference = json!({ "type": "ref/prompt", "name": name });
        if !judge_one(s, &mut peer, &mut tally, item, reference, &argument).await {
            break;
        }
    }
    Ok(tally.verdict(
        "completed",
        Outcome::skipped("no listed prompt has an argument to complete"),
    ))
}

async fn template_variables(s: &mut Scenario) -> Verdict {
    surface::require(s, &["completions", "resources"])?;
    let max = s.options().max_items;
    let mut peer = s.connect_any_era().await?;
    let walk = match surface::walk(
        s,
        &mut peer,
        method::RESOURCES_TEMPLATES_LIST,
        "resourceTemplates",
        Some(max),
    )
    .await
    {
        Ok(walk) => walk,
        Err(f) if f.code() == Some(code::METHOD_NOT_FOUND) => {
            return Ok(Outcome::skipped(format!(
                "resources/templates/list is not served ({}): no template variables to complete",
                f.reply.describe()
            )));
        }
        Err(f) => return Err(f.fail()),
    };
    let mut tally = Tally::new("template variables", "FEAT-7");
    walk.record_findings(&mut tally);
    let mut asked = Vec::new();
    for (_, template) in walk.items() {
        let Some(text) = surface::string_member(template, "uriTemplate") else {
            continue;
        };
        // An invalid template is `resources/templates/shape`'s finding: nothing to complete.
        let Ok(parsed) = Template::parse(text) else {
            continue;
        };
        for var in parsed.variables() {
            asked.push((text.to_owned(), var.to_owned()));
        }
    }
    for (template, var) in asked.into_iter().take(max) {
        let item = format!("template {template} variable `{var}`");
        let reference = json!({ "type": "ref/resource", "uri": template });
        if !judge_one(s, &mut peer, &mut tally, item, reference, &var).await {
            break;
        }
    }
    Ok(tally.verdict(
        "completed",
        Outcome::skipped("no listed template has a variable to complete"),
    ))
}
