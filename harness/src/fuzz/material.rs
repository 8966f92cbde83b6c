//! What the server offers, read once before fuzzing: its tools (with their argument names),
//! resource URIs and prompt names, through the modern era (`server/discover` then the lists)
//! or, when that gets no result, the legacy handshake. Only the first page of each list is
//! read, every wait is bounded, and a server that answers none of it still gets fuzzed (with
//! the generator's own vocabulary and no tool called by a plausible name).

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::strategy::{Material, Tool};
use crate::target::{StartError, Target};
use mcpspec_core::protocol::{meta, method, version};
use mcpspec_core::transport::{ExchangeBody, LineTransport, Recv};

/// Reads the server's lists into `material`; `allowed` are the `--allow-tool` names. Returns
/// how the lists were read (`modern`, `legacy`, or why not), for the run's first line.
pub async fn gather(
    target: &Target,
    material: &mut Material,
    allowed: &[String],
    timeout: Duration,
    max_message: usize,
) -> Result<String, StartError> {
    let modern = json!({ meta::PROTOCOL_VERSION: version::MODERN, meta::CLIENT_CAPABILITIES: {} });
    let mut transport = target.connect(max_message)?;
    let lists = [
        method::TOOLS_LIST,
        method::RESOURCES_LIST,
        method::PROMPTS_LIST,
    ];
    let mut lines = vec![request("d", method::DISCOVER, json!({ "_meta": modern }))];
    lines.extend(
        lists
            .iter()
            .map(|m| request(m, m, json!({ "_meta": modern }))),
    );
    let mut answers = ask(&mut transport, &lines, timeout).await;
    let mut how = "modern";
    if !answers.contains_key("d") {
        drop(transport);
        transport = target.connect(max_message)?;
        let init = json!({
            "protocolVersion": version::LATEST_LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "mcpspec-fuzz", "version": env!("CARGO_PKG_VERSION")},
        });
        let mut lines = vec![
            request("i", method::INITIALIZE, init),
            json!({"jsonrpc": "2.0", "method": method::INITIALIZED}).to_string(),
        ];
        lines.extend(lists.iter().map(|m| request(m, m, json!({}))));
        answers = ask(&mut transport, &lines, timeout).await;
        how = if answers.contains_key("i") {
            "legacy"
        } else {
            "no answer to server/discover or initialize"
        };
    }
    drop(transport);
    read_lists(&answers, material, allowed);
    Ok(how.into())
}

fn request(id: &str, method_name: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method_name, "params": params}).to_string()
}

/// Sends `lines` and collects the results by (string) id until every request is answered or
/// `timeout` passes without a line.
async fn ask(
    transport: &mut LineTransport,
    lines: &[String],
    timeout: Duration,
) -> HashMap<String, Value> {
    let hard_stop = Instant::now() + 4 * timeout;
    let mut expected = 0;
    for line in lines {
        expected += usize::from(line.contains(r#""id":"#));
        let bytes = format!("{line}\n");
        if transport
            .send(bytes.as_bytes(), Instant::now() + timeout)
            .await
            .is_err()
        {
            break;
        }
    }
    let mut answers = HashMap::new();
    let mut heard = 0;
    while heard < expected {
        let deadline = (Instant::now() + timeout).min(hard_stop);
        let bytes = match transport.recv(deadline).await {
            Recv::Line(bytes) => bytes,
            Recv::Exchange(exchange) => match exchange.body {
                ExchangeBody::Message(bytes) => bytes,
                ExchangeBody::Failed(_) => continue,
            },
            _ => break,
        };
        let Ok(message) = serde_json::from_slice::<Value>(&bytes) else {
            continue;
        };
        let Some(id) = message.get("id").and_then(Value::as_str) else {
            continue;
        };
        heard += 1;
        if let Some(result) = message.get("result") {
            answers.insert(id.to_owned(), result.clone());
        }
    }
    answers
}

/// How many valid calls of each allowed tool seed the cases (arguments built from its
/// `inputSchema` for seeds 0, 1, 2: the plain call and two variations).
pub const VALID_CALLS: u64 = 3;

/// `tools/call` lines of `name` with arguments its `inputSchema` accepts (POL-31's generator,
/// each instance validated against the schema): seeds that reach the tool's own code, which
/// the mutations then bend. A schema no instance can be built for gives none.
fn valid_calls(name: &str, schema: &Value) -> Vec<Vec<u8>> {
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for seed in 0..VALID_CALLS {
        let Ok(arguments) = crate::schema::arguments::arguments(schema, seed) else {
            break;
        };
        let line = serde_json::to_vec(&serde_json::json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": method::TOOLS_CALL,
            "params": {
                "name": name,
                "arguments": arguments,
                "_meta": {
                    mcpspec_core::protocol::meta::PROTOCOL_VERSION: mcpspec_core::protocol::version::MODERN,
                    mcpspec_core::protocol::meta::CLIENT_CAPABILITIES: {},
                },
            },
        }))
        .unwrap_or_default();
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines
}

/// Fills `material` from the list results in `answers`.
fn read_lists(answers: &HashMap<String, Value>, material: &mut Material, allowed: &[String]) {
    let items = |list: &str, key: &str| -> Vec<Value> {
        answers
            .get(list)
            .and_then(|r| r.get(key))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let name = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    material.tools_known = answers
        .get(method::TOOLS_LIST)
        .is_some_and(|r| r.get("tools").is_some_and(Value::is_array));
    material.tools.clear();
    material.forbidden_tools.clear();
    for tool in items(method::TOOLS_LIST, "tools") {
        let Some(tool_name) = name(&tool, "name") else {
            continue;
        };
        if allowed.contains(&tool_name) {
            let arguments = tool
                .pointer("/inputSchema/properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            if let Some(schema) = tool.get("inputSchema") {
                material.seeds.extend(valid_calls(&tool_name, schema));
            }
            material.tools.push(Tool {
                name: tool_name,
                arguments,
            });
        } else {
            material.forbidden_tools.push(tool_name);
        }
    }
    // An allowed tool the list does not show (or a list that was not read) is still the
    // user's to call, with no argument names known.
    for tool_name in allowed {
        if !material.tools.iter().any(|t| &t.name == tool_name) {
            material.tools.push(Tool {
                name: tool_name.clone(),
                arguments: Vec::new(),
            });
        }
    }
    material.resource_uris = items(method::RESOURCES_LIST, "resources")
        .iter()
        .filter_map(|r| name(r, "uri"))
        .collect();
    material.prompt_names = items(method::PROMPTS_LIST, "prompts")
        .iter()
        .filter_map(|p| name(p, "name"))
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allowed_tools_are_callable_and_the_rest_are_forbidden() {
        let mut answers = HashMap::new();
        answers.insert(
            method::TOOLS_LIST.to_owned(),
            json!({"tools": [
                {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {}}}},
                {"name": "delete_everything", "inputSchema": {"type": "object"}},
            ]}),
        );
        answers.insert(
            method::RESOURCES_LIST.to_owned(),
            json!({"resources": [{"uri": "file:///a", "name": "a"}]}),
        );
        let mut m = Material::default();
        read_lists(&answers, &mut m, &["echo".to_owned()]);
        assert!(m.tools_known);
        assert_eq!(
            m.tools,
            vec![Tool {
                name: "echo".into(),
                arguments: vec!["text".into()]
            }]
        );
        assert_eq!(m.forbidden_tools, vec!["delete_everything".to_owned()]);
        assert_eq!(m.resource_uris, vec!["file:///a".to_owned()]);
        assert!(m.may_call("echo"));
        assert!(!m.may_call("delete_everything"));
        assert!(m.may_call("anything-else"));
        let call = br#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_everything"}}]"#;
        let guarded = String::from_utf8(m.guard(call.to_vec())).unwrap_or_default();
        assert!(
            guarded.contains(super::super::strategy::NONEXISTENT_TOOL),
            "{guarded}"
        );
    }

    #[test]
    fn an_unread_tool_list_forbids_every_plausible_name() {
        let mut m = Material::default();
        read_lists(&HashMap::new(), &mut m, &[]);
        assert!(!m.tools_known);
        assert!(!m.may_call("echo"));
        assert!(!m.may_call("x"));
        assert!(m.may_call(""));
        assert!(m.may_call("a\u{0}b"));
    }

    #[test]
    fn an_allowed_tool_seeds_valid_calls_built_from_its_schema() {
        let tools = serde_json::json!({"tools": [
            {"name": "add", "inputSchema": {"type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"]}},
            {"name": "rm", "inputSchema": {"type": "object"}},
        ]});
        let answers = HashMap::from([(method::TOOLS_LIST.to_owned(), tools)]);
        let mut material = Material::default();
        read_lists(&answers, &mut material, &["add".to_owned()]);
        assert!(!material.seeds.is_empty());
        for line in &material.seeds {
            let call: Value = serde_json::from_slice(line).unwrap();
            assert_eq!(
                call["params"]["name"], "add",
                "only allowed tools are seeded"
            );
            let args = &call["params"]["arguments"];
            assert!(args["a"].is_number() && args["b"].is_number(), "{args}");
        }
    }
}
