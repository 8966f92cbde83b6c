//! The issuer's keys: its RFC 8414 metadata (`/.well-known/oauth-authorization-server`), then
//! the JWKS its `jwks_uri` names, each by one plain-HTTP GET (the issuer is mcpspec's test
//! issuer or another on loopback: no TLS). Bounded: [`FETCH_WAIT`] per document, at most
//! [`DOCUMENT_LIMIT`] bytes, `Content-Length`, chunked or read-to-close bodies.

use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How long one document may take (generous: a loaded machine's loopback is still fast).
const FETCH_WAIT: Duration = Duration::from_secs(10);
/// The largest document read.
const DOCUMENT_LIMIT: usize = 256 * 1024;

/// The keys the issuer at `issuer` publishes, by key id.
pub(super) async fn jwks(
    issuer: &str,
) -> Result<Vec<(Option<String>, jsonwebtoken::DecodingKey)>, String> {
    let metadata = get_json(&format!("{issuer}/.well-known/oauth-authorization-server")).await?;
    let uri = metadata
        .get("jwks_uri")
        .and_then(Value::as_str)
        .ok_or("the issuer's metadata has no jwks_uri")?;
    let set: jsonwebtoken::jwk::JwkSet = serde_json::from_value(get_json(uri).await?)
        .map_err(|e| format!("{uri} is not a JWKS: {e}"))?;
    Ok(set
        .keys
        .iter()
        .filter_map(|jwk| {
            let key = jsonwebtoken::DecodingKey::from_jwk(jwk).ok()?;
            Some((jwk.common.key_id.clone(), key))
        })
        .collect())
}

/// GETs `url` (plain HTTP) as JSON.
async fn get_json(url: &str) -> Result<Value, String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url}: only http:// issuers are supported"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let connect_to = if authority.contains(':') && !authority.ends_with(']') {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(&connect_to)
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {authority}\r\nAccept: application/json\r\n\
             Connection: close\r\n\r\n"
        );
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        let mut bytes = Vec::new();
        let mut chunk = [0u8; 8192];
        loop {
            let n = stream
                .read(&mut chunk)
                .await
                .map_err(|e| format!("{url}: {e}"))?;
            if n == 0 {
                break;
            }
            bytes.extend_from_slice(&chunk[..n]);
            if bytes.len() > DOCUMENT_LIMIT {
                return Err(format!("{url}: a document over {DOCUMENT_LIMIT} bytes"));
            }
        }
        Ok(bytes)
    };
    let bytes = tokio::time::timeout(FETCH_WAIT, exchange)
        .await
        .map_err(|_| format!("{url}: no answer within {FETCH_WAIT:?}"))??;
    let head_end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| format!("{url}: not an HTTP response"))?;
    let head = String::from_utf8_lossy(&bytes[..head_end]);
    let status = head.split(' ').nth(1).unwrap_or("");
    if status != "200" {
        return Err(format!("{url}: HTTP {status}"));
    }
    let chunked = head.lines().any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("transfer-encoding:") && l.contains("chunked")
    });
    let body = &bytes[head_end + 4..];
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_vec()
    };
    serde_json::from_slice(&body).map_err(|e| format!("{url}: not JSON: {e}"))
}

/// A chunked body's data (what is malformed ends it).
fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(line_end) = body.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&body[..line_end]);
        let Ok(size) = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
        else {
            break;
        };
        let start = line_end + 2;
        if size == 0 || body.len() < start + size {
            break;
        }
        out.extend_from_slice(&body[start..start + size]);
        body = &body[(start + size + 2).min(body.len())..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::dechunk;

    #[test]
    fn dechunks() {
        assert_eq!(dechunk(b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"), b"abcde");
        assert_eq!(dechunk(b"zz\r\n"), b"");
    }
}
