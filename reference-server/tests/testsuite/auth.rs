//! Authorization mode (`--auth-issuer`) without faults: what a client without a token, with a
//! bad one, with a right one and with one lacking a scope gets, and the protected resource
//! metadata (see `transport/http/auth.rs`). The faults that break each rule are shown in
//! `faults.rs`.
use crate::support;

use serde_json::json;
use support::auth::{Protected, TestKey, list, param};
use support::http::{Req, send};
use support::modern;

#[tokio::test]
async fn a_request_without_a_token_gets_a_bearer_challenge_naming_the_metadata() {
    let p = Protected::start(&[]).await;
    let reply = send(p.addr(), &list()).await;
    assert_eq!(reply.status, 401);
    let metadata_url = format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        p.addr()
    );
    assert_eq!(
        reply.header("www-authenticate"),
        Some(
            format!(r#"Bearer scope="mcp:read mcp:tools", resource_metadata="{metadata_url}""#)
                .as_str()
        )
    );
    let mut get = Req::new("GET", b"");
    get.path = "/.well-known/oauth-protected-resource/mcp".into();
    let document = send(p.addr(), &get).await;
    assert_eq!(document.status, 200);
    assert_eq!(
        document.json(),
        json!({
            "resource": p.resource(),
            "authorization_servers": [p.issuer],
            "scopes_supported": ["mcp:read", "mcp:tools"],
            "bearer_methods_supported": ["header"],
            "resource_name": "mcp-reference-server",
        })
    );
}

#[tokio::test]
async fn a_right_token_is_served_and_every_wrong_one_refused() {
    let p = Protected::start(&[]).await;
    assert_eq!(p.list_with(&p.right()).await.status, 200);
    // The scheme is case-insensitive.
    let lower = list().header("Authorization", &format!("bearer {}", p.right()));
    assert_eq!(send(p.addr(), &lower).await.status, 200);
    let mut cases = Vec::new();
    let mut expired = p.claims("mcp:read");
    expired["exp"] = json!(expired["iat"].as_u64().unwrap() - 3600);
    cases.push(("expired", p.token(&expired)));
    let mut other_audience = p.claims("mcp:read");
    other_audience["aud"] = json!(format!("{}/", p.resource()));
    cases.push(("audience", p.token(&other_audience)));
    let mut other_issuer = p.claims("mcp:read");
    other_issuer["iss"] = json!("http://127.0.0.1:1");
    cases.push(("issuer", p.token(&other_issuer)));
    cases.push((
        "unknown key",
        TestKey::new("other").sign("other", &p.claims("mcp:read")),
    ));
    cases.push((
        "same kid, another key",
        TestKey::new(support::auth::KID).sign(support::auth::KID, &p.claims("mcp:read")),
    ));
    cases.push(("garbage", "not-a-jwt".into()));
    for (what, token) in cases {
        let reply = p.list_with(&token).await;
        assert_eq!(reply.status, 401, "{what}");
        assert_eq!(
            param(&reply, "error").as_deref(),
            Some("invalid_token"),
            "{what}"
        );
        assert!(param(&reply, "resource_metadata").is_some(), "{what}");
    }
    // Malformed credentials: 400 invalid_request; another scheme: a plain challenge.
    for value in [p.right(), "Bearer".into(), "Bearer a b".into()] {
        let reply = send(p.addr(), &list().header("Authorization", &value)).await;
        assert_eq!(reply.status, 400, "{value}");
        assert_eq!(param(&reply, "error").as_deref(), Some("invalid_request"));
    }
    let basic = send(
        p.addr(),
        &list().header("Authorization", "Basic dXNlcjpwYXNz"),
    )
    .await;
    assert_eq!((basic.status, param(&basic, "error")), (401, None));
    // A token in the query string is not read.
    let mut query = list();
    query.path = format!("/mcp?access_token={}", p.right());
    assert_eq!(send(p.addr(), &query).await.status, 401);
}

#[tokio::test]
async fn a_missing_scope_gets_403_insufficient_scope() {
    let p = Protected::start(&[]).await;
    let read_only = p.token(&p.claims("mcp:read"));
    assert_eq!(p.list_with(&read_only).await.status, 200);
    let call = modern(
        1,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}}),
    );
    let reply = send(
        p.addr(),
        &Req::modern(&call).header("Authorization", &format!("Bearer {read_only}")),
    )
    .await;
    assert_eq!(reply.status, 403);
    assert_eq!(
        param(&reply, "error").as_deref(),
        Some("insufficient_scope")
    );
    assert_eq!(
        param(&reply, "scope").as_deref(),
        Some("mcp:read mcp:tools")
    );
    assert!(param(&reply, "resource_metadata").is_some());
    let none = p.list_with(&p.token(&p.claims(""))).await;
    assert_eq!(none.status, 403);
    assert_eq!(param(&none, "scope").as_deref(), Some("mcp:read"));
}
