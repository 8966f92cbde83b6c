//! Modern list results: pages with opaque cursors (an unknown cursor is -32602, FEAT-2), the
//! cache hints on every page with the same `cacheScope` (CACHE-1, CACHE-2), a fixed order
//! (LIST-2) and the same content on every connection (LIST-1). A cursor names only its offset,
//! so any instance continues what another began (SCALE-1).
//!
//! `prompts/list`, `resources/list` and `resources/templates/list` page [`PAGE_SIZE`] items at
//! a time (there are three prompts and three resources, so both take two pages); `tools/list`
//! is one page (cursors are still validated), so a client that reads only the first page finds
//! every tool.

use serde_json::{Map, Value, json};

use crate::config::faults::Fault;
use crate::engine::connection::Connection;
use crate::engine::scope::Scope;
use crate::error::RpcError;
use crate::protocol::cache;

/// Items per page of the paged lists.
pub const PAGE_SIZE: usize = 2;

const CURSOR_PREFIX: &str = "mcpspec-page-";
/// The cursor of the first page, which only `list-cursor-repeats` issues.
pub(crate) const FIRST_PAGE_CURSOR: &str = "mcpspec-page-0";

/// The cursor that asks for the page at `offset` again.
fn self_cursor(offset: usize, mark: &str) -> String {
    if offset == 0 {
        FIRST_PAGE_CURSOR.to_owned()
    } else {
        format!("{CURSOR_PREFIX}{offset}{mark}")
    }
}

/// One page of `items` under `key`, with cache hints; `page_size` `None`: one page.
pub(crate) fn page(
    scope: &Scope,
    params: Option<&Value>,
    key: &str,
    items: Vec<Value>,
    page_size: Option<usize>,
) -> Result<Value, RpcError> {
    let repeats = scope.has(Fault::ListCursorRepeats);
    let offset = match params.and_then(|p| p.get("cursor")) {
        None | Some(Value::Null) => 0,
        // The cursor `list-cursor-repeats` hands out for the first page.
        Some(Value::String(c)) if repeats && c == FIRST_PAGE_CURSOR => 0,
        Some(cursor) => match cursor
            .as_str()
            .and_then(|c| offset_of(c, items.len(), instance_mark(scope).as_deref()))
        {
            Some(offset) => offset,
            None if scope.has(Fault::InvalidCursorAccepted) => 0,
            None => {
                return Err(RpcError::invalid_params(format!(
                    "invalid cursor {cursor}: not one this server issued"
                )));
            }
        },
    };
    let size = page_size.unwrap_or(usize::MAX).max(1);
    let end = offset.saturating_add(size).min(items.len());
    // `list-pages-overlap`: a page after the first starts one item early.
    let start = if offset > 0 && scope.has(Fault::ListPagesOverlap) {
        offset - 1
    } else {
        offset
    };
    let mut result = Map::new();
    result.insert(key.into(), json!(items[start..end]));
    let mark = instance_mark(scope).unwrap_or_default();
    if end < items.len() {
        result.insert(
            "nextCursor".into(),
            json!(format!("{CURSOR_PREFIX}{end}{mark}")),
        );
    } else if repeats {
        // The last page points at itself: a client following cursors never gets out.
        result.insert("nextCursor".into(), json!(self_cursor(offset, &mark)));
    }
    if !scope.has(Fault::CacheHintsMissingOnList) {
        let scope_name = if offset > 0 && scope.has(Fault::CacheScopeVariesByPage) {
            "private"
        } else {
            cache::SCOPE
        };
        result.insert("ttlMs".into(), json!(ttl_ms(&scope.conn)));
        result.insert("cacheScope".into(), json!(scope_name));
    }
    Ok(Value::Object(result))
}

/// A whole list as one result, for the era without pages (legacy): under
/// `list-cursor-repeats` it still names a `nextCursor`, the one that asks for it again.
pub(crate) fn whole(conn: &Connection, key: &str, items: Vec<Value>) -> Value {
    let mut result = json!({ key: items });
    if conn.has(Fault::ListCursorRepeats) {
        result["nextCursor"] = json!(FIRST_PAGE_CURSOR);
    }
    result
}

/// Under `instance-local-cursor`, what a cursor issued here ends with: this instance's
/// identity, as if the listing's state lived in its memory.
fn instance_mark(scope: &Scope) -> Option<String> {
    scope
        .has(Fault::InstanceLocalCursor)
        .then(|| format!("@{:016x}", scope.conn.config.instance))
}

/// The cache lifetime this instance advertises: the same on every instance, except under
/// `instance-drift` (SCALE-2).
pub(crate) fn ttl_ms(conn: &Connection) -> u64 {
    if conn.has(Fault::InstanceDrift) {
        cache::TTL_MS + 1 + conn.config.instance % 100_000
    } else {
        cache::TTL_MS
    }
}

/// The offset a cursor stands for: only ones this server issues (`0 < offset < len`), ending
/// with `mark` when one is required.
fn offset_of(cursor: &str, len: usize, mark: Option<&str>) -> Option<usize> {
    let rest = cursor.strip_prefix(CURSOR_PREFIX)?;
    let digits = match mark {
        Some(mark) => rest.strip_suffix(mark)?,
        None => rest,
    };
    let offset: usize = digits.parse().ok()?;
    (offset > 0 && offset < len).then_some(offset)
}

/// The `tools/list` items, as the LIST faults distort them.
pub(crate) fn tools(scope: &Scope, mut tools: Vec<Value>) -> Vec<Value> {
    let state = &scope.conn.fault_state;
    if scope.has(Fault::ListVariesPerConnection) {
        for tool in &mut tools {
            if let Some(Value::String(d)) = tool.get_mut("description") {
                d.push_str(&format!(" (connection {})", state.nonce()));
            }
        }
    }
    if scope.has(Fault::ListOrderRandom) && state.odd_list_call() {
        tools.reverse();
    }
    tools
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_issued_cursors_are_valid() {
        assert_eq!(offset_of("mcpspec-page-2", 3, None), Some(2));
        assert_eq!(offset_of("mcpspec-page-0", 3, None), None);
        assert_eq!(offset_of("mcpspec-page-3", 3, None), None);
        assert_eq!(offset_of("page-2", 3, None), None);
        assert_eq!(offset_of("mcpspec-page-x", 3, None), None);
        assert_eq!(offset_of("mcpspec-page-2@a", 3, Some("@a")), Some(2));
        assert_eq!(offset_of("mcpspec-page-2@b", 3, Some("@a")), None);
        assert_eq!(offset_of("mcpspec-page-2", 3, Some("@a")), None);
    }
}
