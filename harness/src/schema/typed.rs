//! The typed layer: each revision's generated types (rust-mcp-schema, one release per revision,
//! see `harness/Cargo.toml`), and which type a message of each method has.
//!
//! A message is valid when it deserializes into its type; `serde_path_to_error` names where the
//! first defect is, turned here into a JSON pointer and an expected/actual pair.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Shape, Violation};
use mcpspec_core::protocol::method;

/// Checks `body` against the type of `shape` in `revision`: `None` when the revision or the
/// method has no type to check against (an unknown method, a list-changed notification whose
/// params are free), else the first violation found.
pub fn check(revision: &str, shape: Shape<'_>, body: &Value) -> Option<Result<(), Violation>> {
    match revision {
        "2026-07-28" => modern::check(shape, body).map(|r| r.map_err(|v| refine_modern(v, body))),
        "2025-11-25" => r2025_11_25::check(shape, body),
        "2025-06-18" => r2025_06_18::check(shape, body),
        "2025-03-26" => r2025_03_26::check(shape, body),
        "2024-11-05" => r2024_11_05::check(shape, body),
        _ => None,
    }
}

/// The most untagged unions one violation is followed into.
const MAX_REFINEMENTS: usize = 4;

/// A 2026-07-28 value that matches no form of an untagged union is only "one of the forms of
/// X" at the union; where the union's discriminating member says which form it meant (an input
/// request's `method`, an elicitation's `mode`), that form's own first defect is the violation,
/// with its deeper pointer (`/inputRequests/confirm/params/requestedSchema`, not
/// `/inputRequests/confirm`).
fn refine_modern(mut found: Violation, body: &Value) -> Violation {
    use rms_2026_07_28::mcp_2026_07_28 as t;
    for _ in 0..MAX_REFINEMENTS {
        let Some(at) = body.pointer(&found.pointer) else {
            return found;
        };
        let member = |name: &str| at.get(name).and_then(Value::as_str);
        let shape = Shape::Result { method: "" };
        let meant = if found.expected.ends_with("forms of InputRequest") {
            match member("method") {
                Some(method::ELICITATION_CREATE) => as_type::<t::ElicitRequest>(shape, at),
                Some("sampling/createMessage") => as_type::<t::CreateMessageRequest>(shape, at),
                Some(method::ROOTS_LIST) => as_type::<t::ListRootsRequest>(shape, at),
                _ => return found,
            }
        } else if found.expected.ends_with("forms of ElicitRequestParams") {
            // `mode` defaults to "form".
            match member("mode") {
                Some("url") => as_type::<t::ElicitRequestUrlParams>(shape, at),
                _ => as_type::<t::ElicitRequestFormParams>(shape, at),
            }
        } else {
            return found;
        };
        let Err(inner) = meant else {
            return found;
        };
        found = Violation {
            pointer: format!("{}{}", found.pointer, inner.pointer),
            expected: inner.expected,
            actual: inner.actual,
            method: found.method,
            revision: found.revision,
        };
    }
    found
}

/// Deserializes `body` as `T`; the first defect as a violation.
///
/// serde is looser than JSON Schema in one way: a derived struct also reads a JSON array of its
/// fields in order (`"tools": []` reads as a `ToolsCapability` with no members), where the
/// official schema says `object`. So the value read is written back, and an array in the
/// message where the type writes an object is a violation too.
pub fn as_type<T: DeserializeOwned + Serialize>(
    shape: Shape<'_>,
    body: &Value,
) -> Result<(), Violation> {
    let typed = match serde_path_to_error::deserialize::<_, T>(body) {
        Ok(typed) => typed,
        Err(e) => return Err(violation(shape, body, e)),
    };
    let Ok(written) = serde_json::to_value(&typed) else {
        return Ok(());
    };
    match array_for_object(body, &written) {
        Some(pointer) => Err(Violation {
            method: shape.method(),
            actual: body.pointer(&pointer).map_or_else(
                || "absent".to_owned(),
                |v| mcpspec_core::text::preview(v, 80),
            ),
            pointer,
            expected: "an object".into(),
            revision: None,
        }),
        None => Ok(()),
    }
}

/// The pointer of the first place where `message` has an array and `written` (the same value
/// as its type writes it) an object; walked without recursion.
fn array_for_object(message: &Value, written: &Value) -> Option<String> {
    let mut stack = vec![(message, written, String::new())];
    while let Some((m, w, pointer)) = stack.pop() {
        match (m, w) {
            (Value::Array(_), Value::Object(_)) => return Some(pointer),
            (Value::Object(m), Value::Object(w)) => {
                for (key, value) in m {
                    if let Some(written) = w.get(key) {
                        let escaped = key.replace('~', "~0").replace('/', "~1");
                        stack.push((value, written, format!("{pointer}/{escaped}")));
                    }
                }
            }
            (Value::Array(m), Value::Array(w)) => {
                for (i, (value, written)) in m.iter().zip(w).enumerate() {
                    stack.push((value, written, format!("{pointer}/{i}")));
                }
            }
            _ => {}
        }
    }
    None
}

/// A `serde_path_to_error` error as a violation: the path as a JSON pointer, serde's
/// "invalid type: X, expected Y" split into expected and actual, a missing field pointed at.
fn violation(
    shape: Shape<'_>,
    body: &Value,
    e: serde_path_to_error::Error<serde_json::Error>,
) -> Violation {
    let mut pointer = String::new();
    for segment in e.path().iter() {
        match segment {
            serde_path_to_error::Segment::Seq { index } => pointer.push_str(&format!("/{index}")),
            serde_path_to_error::Segment::Map { key } => {
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
            }
            serde_path_to_error::Segment::Enum { .. } | serde_path_to_error::Segment::Unknown => {}
        }
    }
    let message = e.inner().to_string();
    let message = message
        .split(" at line ")
        .next()
        .unwrap_or(&message)
        .to_owned();
    let (expected, actual) = if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|r| r.strip_suffix('`'))
    {
        pointer.push('/');
        pointer.push_str(field);
        ("a required member".to_owned(), "absent".to_owned())
    } else if let Some((got, want)) = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))
        .and_then(|r| r.split_once(", expected "))
    {
        (want.to_owned(), got.to_owned())
    } else if let Some(ty) =
        message.strip_prefix("data did not match any variant of untagged enum ")
    {
        let at = body.pointer(&pointer).map_or_else(
            || "absent".to_owned(),
            |v| mcpspec_core::text::preview(v, 80),
        );
        (format!("one of the forms of {ty}"), at)
    } else {
        let at = body.pointer(&pointer).map_or_else(
            || "absent".to_owned(),
            |v| mcpspec_core::text::preview(v, 80),
        );
        (message, at)
    };
    Violation {
        method: shape.method(),
        pointer,
        expected,
        actual,
        revision: None,
    }
}

/// The `resultType` of a modern result, which picks between a final result and an
/// `InputRequiredResult` (SEP-2322).
fn input_required(body: &Value) -> bool {
    body.get("resultType").and_then(Value::as_str) == Some("input_required")
}

/// One revision's method → type table: the entries every revision shares, then `$extra` (the
/// handshake revisions' `initialize`, the modern revision's discover and `InputRequiredResult`).
macro_rules! revision {
    (
        $name:ident, $krate:path, |$shape:ident, $body:ident| { $($extra:tt)* }
        requests { $($request:tt)* }
        notifications { $($notification:tt)* }
    ) => {
        pub mod $name {
            use serde_json::Value;

            #[allow(unused_imports)]
            use super::{Shape, Violation, as_type, input_required, method};
            #[allow(unused_imports)]
            use $krate as t;

            pub fn check($shape: Shape<'_>, $body: &Value) -> Option<Result<(), Violation>> {
                let (shape, body) = ($shape, $body);
                Some(match shape {
                    Shape::Error { .. } => as_type::<t::RpcError>(shape, body),
                    Shape::Result { method } => match method {
                        method::PING
                        | method::LOGGING_SET_LEVEL
                        | method::RESOURCES_SUBSCRIBE
                        | method::RESOURCES_UNSUBSCRIBE => as_type::<t::EmptyResult>(shape, body),
                        method::TOOLS_LIST => as_type::<t::ListToolsResult>(shape, body),
                        method::RESOURCES_LIST => as_type::<t::ListResourcesResult>(shape, body),
                        method::RESOURCES_TEMPLATES_LIST => {
                            as_type::<t::ListResourceTemplatesResult>(shape, body)
                        }
                        method::PROMPTS_LIST => as_type::<t::ListPromptsResult>(shape, body),
                        method::COMPLETION_COMPLETE => as_type::<t::CompleteResult>(shape, body),
                        $($extra)*
                        _ => return None,
                    },
                    Shape::Notification { method } => match method {
                        method::MESSAGE => {
                            as_type::<t::LoggingMessageNotificationParams>(shape, body)
                        }
                        method::PROGRESS => as_type::<t::ProgressNotificationParams>(shape, body),
                        method::RESOURCES_UPDATED => {
                            as_type::<t::ResourceUpdatedNotificationParams>(shape, body)
                        }
                        method::CANCELLED => as_type::<t::CancelledNotificationParams>(shape, body),
                        // Their params are optional: absent is valid.
                        method::TOOLS_LIST_CHANGED
                        | method::PROMPTS_LIST_CHANGED
                        | method::RESOURCES_LIST_CHANGED => {
                            if body.is_null() {
                                return Some(Ok(()));
                            }
                            as_type::<t::NotificationParams>(shape, body)
                        }
                        $($notification)*
                        _ => return None,
                    },
                    Shape::Request { method } => match method {
                        "sampling/createMessage" => {
                            as_type::<t::CreateMessageRequestParams>(shape, body)
                        }
                        // Optional params, as above.
                        method::ROOTS_LIST if body.is_null() => Ok(()),
                        $($request)*
                        _ => return None,
                    },
                })
            }
        }
    };
}

revision!(modern, rms_2026_07_28::mcp_2026_07_28, |shape, body| {
    method::DISCOVER => as_type::<t::DiscoverResult>(shape, body),
    method::SUBSCRIPTIONS_LISTEN => as_type::<t::SubscriptionsListenResult>(shape, body),
    method::TOOLS_CALL if input_required(body) => as_type::<t::InputRequiredResult>(shape, body),
    method::PROMPTS_GET if input_required(body) => as_type::<t::InputRequiredResult>(shape, body),
    method::RESOURCES_READ if input_required(body) => as_type::<t::InputRequiredResult>(shape, body),
    method::TOOLS_CALL => as_type::<t::CallToolResult>(shape, body),
    method::PROMPTS_GET => as_type::<t::GetPromptResult>(shape, body),
    method::RESOURCES_READ => as_type::<t::ReadResourceResult>(shape, body),
}
requests {
    method::ELICITATION_CREATE => as_type::<t::ElicitRequestParams>(shape, body),
    method::ROOTS_LIST => as_type::<t::ListRootsRequestParams>(shape, body),
}
notifications {
    method::ACKNOWLEDGED => as_type::<t::SubscriptionsAcknowledgedNotificationParams>(shape, body),
});

revision!(r2025_11_25, rms_2025_11_25::mcp_2025_11_25, |shape, body| {
    method::INITIALIZE => as_type::<t::InitializeResult>(shape, body),
    method::TOOLS_CALL => as_type::<t::CallToolResult>(shape, body),
    method::PROMPTS_GET => as_type::<t::GetPromptResult>(shape, body),
    method::RESOURCES_READ => as_type::<t::ReadResourceResult>(shape, body),
}
requests {
    method::ELICITATION_CREATE => as_type::<t::ElicitRequestParams>(shape, body),
    method::ROOTS_LIST => as_type::<t::RequestParams>(shape, body),
}
notifications {});

revision!(r2025_06_18, rms_2025_06_18::mcp_2025_06_18, |shape, body| {
    method::INITIALIZE => as_type::<t::InitializeResult>(shape, body),
    method::TOOLS_CALL => as_type::<t::CallToolResult>(shape, body),
    method::PROMPTS_GET => as_type::<t::GetPromptResult>(shape, body),
    method::RESOURCES_READ => as_type::<t::ReadResourceResult>(shape, body),
}
requests {
    method::ELICITATION_CREATE => as_type::<t::ElicitRequestParams>(shape, body),
    method::ROOTS_LIST => as_type::<t::ListRootsRequestParams>(shape, body),
}
notifications {});

revision!(r2025_03_26, rms_2025_03_26::mcp_2025_03_26, |shape, body| {
    method::INITIALIZE => as_type::<t::InitializeResult>(shape, body),
    method::TOOLS_CALL => as_type::<t::CallToolResult>(shape, body),
    method::PROMPTS_GET => as_type::<t::GetPromptResult>(shape, body),
    method::RESOURCES_READ => as_type::<t::ReadResourceResult>(shape, body),
}
requests {
    method::ROOTS_LIST => as_type::<t::ListRootsRequestParams>(shape, body),
}
notifications {});

revision!(r2024_11_05, rms_2024_11_05::mcp_2024_11_05, |shape, body| {
    method::INITIALIZE => as_type::<t::InitializeResult>(shape, body),
    method::TOOLS_CALL => as_type::<t::CallToolResult>(shape, body),
    method::PROMPTS_GET => as_type::<t::GetPromptResult>(shape, body),
    method::RESOURCES_READ => as_type::<t::ReadResourceResult>(shape, body),
}
requests {
    method::ROOTS_LIST => as_type::<t::ListRootsRequestParams>(shape, body),
}
notifications {});

/// A 2026-07-28 type by its name in the official schema (`ElicitRequestURLParams` is
/// `ElicitRequestUrlParams` in the generated code): what the differential test over the
/// official examples validates each example as. `None` for a name the table does not list.
pub fn check_modern_named(name: &str, body: &Value) -> Option<Result<(), Violation>> {
    use rms_2026_07_28::mcp_2026_07_28 as t;
    let shape = Shape::Result {
        method: "(example)",
    };
    Some(match name {
        "AudioContent" => as_type::<t::AudioContent>(shape, body),
        "BlobResourceContents" => as_type::<t::BlobResourceContents>(shape, body),
        "BooleanSchema" => as_type::<t::BooleanSchema>(shape, body),
        "CallToolRequest" => as_type::<t::CallToolRequest>(shape, body),
        "CallToolRequestParams" => as_type::<t::CallToolRequestParams>(shape, body),
        "CallToolResult" => as_type::<t::CallToolResult>(shape, body),
        "CallToolResultResponse" => as_type::<t::CallToolResultResponse>(shape, body),
        "CancelledNotification" => as_type::<t::CancelledNotification>(shape, body),
        "CancelledNotificationParams" => as_type::<t::CancelledNotificationParams>(shape, body),
        "ClientCapabilities" => as_type::<t::ClientCapabilities>(shape, body),
        "CompleteRequest" => as_type::<t::CompleteRequest>(shape, body),
        "CompleteRequestParams" => as_type::<t::CompleteRequestParams>(shape, body),
        "CompleteResult" => as_type::<t::CompleteResult>(shape, body),
        "CompleteResultResponse" => as_type::<t::CompleteResultResponse>(shape, body),
        "CreateMessageRequest" => as_type::<t::CreateMessageRequest>(shape, body),
        "CreateMessageRequestParams" => as_type::<t::CreateMessageRequestParams>(shape, body),
        "CreateMessageResult" => as_type::<t::CreateMessageResult>(shape, body),
        "DiscoverRequest" => as_type::<t::DiscoverRequest>(shape, body),
        "DiscoverResult" => as_type::<t::DiscoverResult>(shape, body),
        "DiscoverResultResponse" => as_type::<t::DiscoverResultResponse>(shape, body),
        "ElicitRequest" => as_type::<t::ElicitRequest>(shape, body),
        "ElicitRequestFormParams" => as_type::<t::ElicitRequestFormParams>(shape, body),
        "ElicitResult" => as_type::<t::ElicitResult>(shape, body),
        "EmbeddedResource" => as_type::<t::EmbeddedResource>(shape, body),
        "GetPromptRequest" => as_type::<t::GetPromptRequest>(shape, body),
        "GetPromptRequestParams" => as_type::<t::GetPromptRequestParams>(shape, body),
        "GetPromptResult" => as_type::<t::GetPromptResult>(shape, body),
        "GetPromptResultResponse" => as_type::<t::GetPromptResultResponse>(shape, body),
        "HeaderMismatchError" => as_type::<t::HeaderMismatchError>(shape, body),
        "ImageContent" => as_type::<t::ImageContent>(shape, body),
        "InputRequests" => as_type::<t::InputRequests>(shape, body),
        "InputRequiredResult" => as_type::<t::InputRequiredResult>(shape, body),
        "InputResponses" => as_type::<t::InputResponses>(shape, body),
        "InternalError" => as_type::<t::InternalError>(shape, body),
        "InvalidParamsError" => as_type::<t::InvalidParamsError>(shape, body),
        "ListPromptsRequest" => as_type::<t::ListPromptsRequest>(shape, body),
        "ListPromptsResult" => as_type::<t::ListPromptsResult>(shape, body),
        "ListPromptsResultResponse" => as_type::<t::ListPromptsResultResponse>(shape, body),
        "ListResourceTemplatesRequest" => as_type::<t::ListResourceTemplatesRequest>(shape, body),
        "ListResourceTemplatesResult" => as_type::<t::ListResourceTemplatesResult>(shape, body),
        "ListResourceTemplatesResultResponse" => {
            as_type::<t::ListResourceTemplatesResultResponse>(shape, body)
        }
        "ListResourcesRequest" => as_type::<t::ListResourcesRequest>(shape, body),
        "ListResourcesResult" => as_type::<t::ListResourcesResult>(shape, body),
        "ListResourcesResultResponse" => as_type::<t::ListResourcesResultResponse>(shape, body),
        "ListRootsRequest" => as_type::<t::ListRootsRequest>(shape, body),
        "ListRootsResult" => as_type::<t::ListRootsResult>(shape, body),
        "ListToolsRequest" => as_type::<t::ListToolsRequest>(shape, body),
        "ListToolsResult" => as_type::<t::ListToolsResult>(shape, body),
        "ListToolsResultResponse" => as_type::<t::ListToolsResultResponse>(shape, body),
        "LoggingMessageNotification" => as_type::<t::LoggingMessageNotification>(shape, body),
        "LoggingMessageNotificationParams" => {
            as_type::<t::LoggingMessageNotificationParams>(shape, body)
        }
        "MethodNotFoundError" => as_type::<t::MethodNotFoundError>(shape, body),
        "MissingRequiredClientCapabilityError" => {
            as_type::<t::MissingRequiredClientCapabilityError>(shape, body)
        }
        "ModelPreferences" => as_type::<t::ModelPreferences>(shape, body),
        "NumberSchema" => as_type::<t::NumberSchema>(shape, body),
        "PaginatedRequestParams" => as_type::<t::PaginatedRequestParams>(shape, body),
        "ParseError" => as_type::<t::ParseError>(shape, body),
        "ProgressNotification" => as_type::<t::ProgressNotification>(shape, body),
        "ProgressNotificationParams" => as_type::<t::ProgressNotificationParams>(shape, body),
        "PromptListChangedNotification" => as_type::<t::PromptListChangedNotification>(shape, body),
        "ReadResourceRequest" => as_type::<t::ReadResourceRequest>(shape, body),
        "ReadResourceResult" => as_type::<t::ReadResourceResult>(shape, body),
        "ReadResourceResultResponse" => as_type::<t::ReadResourceResultResponse>(shape, body),
        "Resource" => as_type::<t::Resource>(shape, body),
        "ResourceLink" => as_type::<t::ResourceLink>(shape, body),
        "ResourceListChangedNotification" => {
            as_type::<t::ResourceListChangedNotification>(shape, body)
        }
        "ResourceUpdatedNotification" => as_type::<t::ResourceUpdatedNotification>(shape, body),
        "ResourceUpdatedNotificationParams" => {
            as_type::<t::ResourceUpdatedNotificationParams>(shape, body)
        }
        "Root" => as_type::<t::Root>(shape, body),
        "SamplingMessage" => as_type::<t::SamplingMessage>(shape, body),
        "ServerCapabilities" => as_type::<t::ServerCapabilities>(shape, body),
        "StringSchema" => as_type::<t::StringSchema>(shape, body),
        "SubscriptionsAcknowledgedNotification" => {
            as_type::<t::SubscriptionsAcknowledgedNotification>(shape, body)
        }
        "SubscriptionsListenRequest" => as_type::<t::SubscriptionsListenRequest>(shape, body),
        "SubscriptionsListenResult" => as_type::<t::SubscriptionsListenResult>(shape, body),
        "SubscriptionsListenResultResponse" => {
            as_type::<t::SubscriptionsListenResultResponse>(shape, body)
        }
        "TextContent" => as_type::<t::TextContent>(shape, body),
        "TextResourceContents" => as_type::<t::TextResourceContents>(shape, body),
        "TitledMultiSelectEnumSchema" => as_type::<t::TitledMultiSelectEnumSchema>(shape, body),
        "TitledSingleSelectEnumSchema" => as_type::<t::TitledSingleSelectEnumSchema>(shape, body),
        "Tool" => as_type::<t::Tool>(shape, body),
        "ToolListChangedNotification" => as_type::<t::ToolListChangedNotification>(shape, body),
        "ToolResultContent" => as_type::<t::ToolResultContent>(shape, body),
        "ToolUseContent" => as_type::<t::ToolUseContent>(shape, body),
        "UnsupportedProtocolVersionError" => {
            as_type::<t::UnsupportedProtocolVersionError>(shape, body)
        }
        "UntitledMultiSelectEnumSchema" => as_type::<t::UntitledMultiSelectEnumSchema>(shape, body),
        "UntitledSingleSelectEnumSchema" => {
            as_type::<t::UntitledSingleSelectEnumSchema>(shape, body)
        }
        "Error" => as_type::<t::RpcError>(shape, body),
        "ServerResult" => as_type::<t::ServerResult>(shape, body),
        "ServerNotification" => as_type::<t::ServerNotification>(shape, body),
        "ElicitRequestURLParams" => as_type::<t::ElicitRequestUrlParams>(shape, body),
        "JSONRPCErrorResponse" => as_type::<t::JsonrpcErrorResponse>(shape, body),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::schema::{Shape, validate};

    fn input_required(request: serde_json::Value) -> Vec<String> {
        let body = json!({"resultType": "input_required", "inputRequests": {"confirm": request}});
        validate(
            "2026-07-28",
            Shape::Result {
                method: "tools/call",
            },
            &body,
        )
        .iter()
        .map(ToString::to_string)
        .collect()
    }

    #[test]
    fn an_input_request_that_fits_no_form_is_judged_as_the_form_its_method_names() {
        let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
        let form = |schema| {
            json!({"method": "elicitation/create", "params": {
            "mode": "form", "message": "Confirm?", "requestedSchema": schema}})
        };
        assert!(input_required(form(schema.clone())).is_empty());
        let found = input_required(form(json!(schema.to_string())));
        assert_eq!(found.len(), 1);
        assert!(
            found[0].starts_with(
                "tools/call result at /inputRequests/confirm/params/requestedSchema: expected"
            ),
            "{found:?}"
        );
        // A method no form has stays a violation of the union.
        let found = input_required(json!({"method": "elicitation/ask", "params": {}}));
        assert!(
            found[0]
                .contains("at /inputRequests/confirm: expected one of the forms of InputRequest"),
            "{found:?}"
        );
    }
}
