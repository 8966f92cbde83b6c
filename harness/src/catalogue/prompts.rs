//! `prompts/get/listed` (FEAT-6, FEAT-3; POL-31): each listed prompt (up to `--max-items`) is
//! got with its required arguments, each valued from `completion/complete` when the server
//! declares completions, else the placeholder `mcpspec`; the messages are judged. In either
//! era (POL-28).
//!
//! Also the error paths (2026-07-28, [`error_paths`]): `prompts/get` of a name that cannot
//! exist, and of a listed prompt without one of its required arguments (the others filled
//! with strings), are -32602.

use serde_json::{Map, Value, json};

use super::prelude::*;
use super::support::expect_code_or;
use super::surface::{self, Tally};
use crate::outcome::Kind;

pub fn group() -> Vec<Check> {
    vec![Check {
        id: "prompts/get/listed",
        requirements: &["FEAT-6", "FEAT-3", "SCHEMA-1", "POL-28", "POL-31"],
        level: Level::Must,
        era: Era::Any,
        isolation: Isolation::Shared,
        needs: &[Need::AnyEra, Need::Capability("prompts")],
        description: "`prompts/get` of each listed prompt (up to --max-items) with its required \
                      arguments (values from `completion/complete` when completions are \
                      declared, else `mcpspec`).",
        expectation: "a result with `messages`, each with role `user` or `assistant` and one \
                      content block valid for its type; -32602 for a placeholder value is \
                      Info, any other error Fail",
        faults: &[
            "prompt-message-bad-role",
            "prompt-message-content-array",
            "listed-prompt-fails",
            "prompt-message-bad-role --eras legacy",
        ],
        script: |s| Box::pin(get_listed(s)),
    }]
}

/// The required arguments of a listed prompt.
fn required_arguments(prompt: &Value) -> Vec<&str> {
    prompt
        .get("arguments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|a| a.get("required") == Some(&Value::Bool(true)))
        .filter_map(|a| surface::string_member(a, "name"))
        .collect()
}

async fn get_listed(s: &mut Scenario) -> Verdict {
    surface::require(s, &["prompts"])?;
    let max = s.options().max_items;
    let completes = surface::advertised(s, "completions");
    let mut peer = s.connect_any_era().await?;
    let walk = surface::walk(s, &mut peer, method::PROMPTS_LIST, "prompts", Some(max))
        .await
        .map_err(|f| f.fail())?;
    let mut tally = Tally::new("prompts", "FEAT-6");
    walk.record_findings(&mut tally);
    let prompts: Vec<Value> = walk
        .items()
        .into_iter()
        .take(max)
        .map(|(_, p)| p.clone())
        .collect();
    for prompt in &prompts {
        let Some(name) = surface::string_member(prompt, "name") else {
            continue;
        };
        let item = format!("prompt `{name}`");
        let mut arguments: Map<String, Value> = Map::new();
        let mut placeholders = Vec::new();
        for argument in required_arguments(prompt) {
            let completed = if completes {
                let reference = json!({ "type": "ref/prompt", "name": name });
                surface::completed_value(&mut peer, reference, argument, &arguments).await
            } else {
                None
            };
            let value = completed.unwrap_or_else(|| {
                placeholders.push(argument.to_owned());
                surface::PLACEHOLDER.to_owned()
            });
            arguments.insert(argument.to_owned(), json!(value));
        }
        // The completions only supply values: `completion/complete/prompt-argument` judges them.
        s.take_schema_findings();
        let reply = peer
            .call(
                request(method::PROMPTS_GET)
                    .param("name", json!(name))
                    .param("arguments", Value::Object(arguments.clone())),
            )
            .await;
        let schema = surface::violations(&s.take_schema_findings());
        let with = format!("with {}", preview(&Value::Object(arguments), 80));
        let Some(result) = reply.result() else {
            let answered = reply.error().is_some();
            // Prompt arguments are free strings: a prompt may still refuse the placeholder
            // (-32602), which says nothing about its rendering; any other error does.
            let refused_placeholder = !placeholders.is_empty()
                && reply
                    .error()
                    .is_some_and(|e| e.code == code::INVALID_PARAMS);
            let (kind, why) = if refused_placeholder {
                (
                    Kind::Info,
                    format!(
                        " (the placeholder value of {} may not be one the prompt takes)",
                        placeholders.join(", ")
                    ),
                )
            } else {
                (
                    Kind::Fail,
                    "; FEAT-6: a listed prompt with its required arguments is rendered".into(),
                )
            };
            tally.unanswered(
                item,
                kind,
                format!("{with}: {}{why}", reply.describe()),
                schema,
                reply.evidence(),
            );
            if !answered {
                break;
            }
            continue;
        };
        let count = result
            .get("messages")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let mut problems = surface::prompt_problems(result);
        problems.extend(schema);
        tally.judge(
            item,
            problems,
            format!("{with}: {count} message(s)"),
            reply.evidence(),
        );
    }
    Ok(tally.verdict(
        "rendered",
        Outcome::skipped(format!(
            "prompts/list lists no prompt to get ({})",
            walk.extent()
        )),
    ))
}

pub fn error_paths() -> Vec<Check> {
    vec![
        Check {
            id: "prompts/get/unknown-prompt",
            requirements: &["FEAT-2", "POL-11"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::Capability("prompts")],
            description: "`prompts/get` of a prompt name that cannot exist.",
            expectation: "error -32602; a result or another error code is NonStrict (FEAT-2: \
                          SHOULD)",
            faults: &["unknown-prompt-result"],
            script: |s| Box::pin(unknown_prompt(s)),
        },
        Check {
            id: "prompts/get/missing-argument",
            requirements: &["FEAT-2", "POL-1", "POL-11"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::Capability("prompts")],
            description: "`prompts/get` of a listed prompt without one required argument (the \
                          others given as strings).",
            expectation: "error -32602; a rendered prompt or another error code is NonStrict \
                          (FEAT-2: SHOULD)",
            faults: &["prompt-missing-argument-accepted"],
            script: |s| Box::pin(missing_argument(s)),
        },
    ]
}

/// A prompt name no server has.
const MISSING_PROMPT: &str = "mcpspec-nonexistent-prompt-7f3a";

async fn unknown_prompt(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let reply = peer
        .call(request(method::PROMPTS_GET).param("name", json!(MISSING_PROMPT)))
        .await;
    if reply.result().is_some() {
        return Ok(Outcome::non_strict(format!(
            "`prompts/get` of an unknown prompt gave a result ({}); FEAT-2: it SHOULD be -32602",
            reply.describe()
        )));
    }
    Ok(expect_code_or(
        &reply,
        "prompts/get of an unknown prompt",
        code::INVALID_PARAMS,
        Outcome::non_strict,
    ))
}

/// A listed prompt with a required argument: its name, that argument, and the other required
/// arguments filled with strings.
fn prompt_missing_one(prompts: &[Value]) -> Option<(String, String, Map<String, Value>)> {
    prompts.iter().find_map(|p| {
        let name = p.get("name")?.as_str()?;
        let required: Vec<&str> = p
            .get("arguments")?
            .as_array()?
            .iter()
            .filter(|a| a.get("required") == Some(&json!(true)))
            .filter_map(|a| a.get("name")?.as_str())
            .collect();
        let (left_out, rest) = required.split_first()?;
        let args = rest
            .iter()
            .map(|a| ((*a).to_owned(), json!("mcpspec")))
            .collect();
        Some((name.to_owned(), (*left_out).to_owned(), args))
    })
}

async fn missing_argument(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let prompts = peer.items(method::PROMPTS_LIST, "prompts").await?;
    let Some((name, left_out, args)) = prompt_missing_one(&prompts) else {
        return Ok(Outcome::skipped(
            "prompts/list lists no prompt with a required argument",
        ));
    };
    let reply = peer
        .call(
            request(method::PROMPTS_GET)
                .param("name", json!(name))
                .param("arguments", Value::Object(args)),
        )
        .await;
    let what = format!("prompts/get `{name}` without its required argument `{left_out}`");
    if reply.result().is_some() {
        return Ok(Outcome::non_strict(format!(
            "{what} was rendered ({}); FEAT-2: it SHOULD be -32602",
            reply.describe()
        )));
    }
    Ok(expect_code_or(
        &reply,
        &what,
        code::INVALID_PARAMS,
        Outcome::non_strict,
    ))
}
