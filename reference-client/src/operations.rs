//! What the reference client does once connected, by the scenario's operation: the official
//! suite's `tools_call` (list, call `add_numbers`), `request-metadata` (list) and
//! `sep-2322-client-request-state` (the four MRTR tools).

use serde_json::{Value, json};

use super::session::{Failure, Session};
use mcpspec_core::protocol::method;

/// The tool the `tools_call` operation calls.
const ADD_NUMBERS: &str = "add_numbers";

/// `tools_call`: list the tools, call `add_numbers` (or the first tool) with `{a: 2, b: 3}`.
pub async fn tools_call(session: &mut Session) -> Result<(), Failure> {
    let listed = session.request(method::TOOLS_LIST, Value::Null).await?;
    let names: Vec<&str> = listed
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    let tool = names
        .iter()
        .find(|n| **n == ADD_NUMBERS)
        .or(names.first())
        .map(|n| (*n).to_owned());
    if let Some(tool) = tool {
        session
            .request_with_input(
                method::TOOLS_CALL,
                json!({"name": tool, "arguments": {"a": 2, "b": 3}}),
            )
            .await?;
    }
    Ok(())
}

/// `request-metadata`: the discover already happened while connecting; list the tools.
pub async fn request_metadata(session: &mut Session) -> Result<(), Failure> {
    session.request(method::TOOLS_LIST, Value::Null).await?;
    Ok(())
}

/// `sep-2322-client-request-state`: each MRTR tool called, input answered, the unrelated tool
/// between.
pub async fn request_state(session: &mut Session) -> Result<(), Failure> {
    session.request(method::TOOLS_LIST, Value::Null).await?;
    for tool in [
        "test_mrtr_echo_state",
        "test_mrtr_unrelated",
        "test_mrtr_no_state",
        "test_mrtr_no_result_type",
    ] {
        session
            .request_with_input(method::TOOLS_CALL, json!({"name": tool, "arguments": {}}))
            .await?;
    }
    Ok(())
}
