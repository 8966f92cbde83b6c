//! Frame builders: what a scenario sends, written the way it reads.
//!
//! `request("tools/list")` is a request the peer completes with an id and, in the modern era,
//! the `_meta` envelope; `.version("2099-01-01")`, `.without_meta(KEY)`, `.bare()` and friends
//! break exactly one rule at a time (POL-1). `raw(b"{oops")` sends bytes as they are.

use serde_json::{Map, Value, json};

use mcpspec_core::protocol::{meta, names, version};

/// Something to send.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub(crate) body: Body,
}

#[derive(Debug, Clone)]
pub(crate) enum Body {
    Message(Box<MessageSpec>),
    Raw(Vec<u8>),
}

#[derive(Debug, Clone)]
pub(crate) struct MessageSpec {
    pub id: IdSpec,
    pub method: String,
    pub params: Map<String, Value>,
    /// Send `params` even when empty.
    pub force_params: bool,
    pub envelope: Envelope,
    pub jsonrpc: Value,
}

/// How the request id is chosen.
#[derive(Debug, Clone)]
pub(crate) enum IdSpec {
    /// The peer's next integer id.
    Auto,
    /// Exactly this JSON value (may be invalid on purpose).
    Fixed(Value),
    /// No id: a notification.
    Absent,
}

/// Which `_meta` envelope the message carries.
#[derive(Debug, Clone)]
pub(crate) enum Envelope {
    /// Whatever the peer's era calls for (the modern envelope in the modern era, none in
    /// legacy).
    ForEra,
    /// The modern envelope with these adjustments.
    Modern {
        version: String,
        without: Vec<&'static str>,
        no_meta: bool,
    },
    /// No `_meta` at all.
    None,
}

/// A request; the peer assigns the id.
pub fn request(method: &str) -> Outgoing {
    Outgoing::message(method, IdSpec::Auto)
}

/// A notification (no id).
pub fn notification(method: &str) -> Outgoing {
    Outgoing::message(method, IdSpec::Absent)
}

/// Bytes sent exactly as given; a newline is appended if missing.
pub fn raw(bytes: impl Into<Vec<u8>>) -> Outgoing {
    let mut bytes = bytes.into();
    if bytes.last() != Some(&b'\n') {
        bytes.push(b'\n');
    }
    Outgoing {
        body: Body::Raw(bytes),
    }
}

impl Outgoing {
    fn message(method: &str, id: IdSpec) -> Self {
        Outgoing {
            body: Body::Message(Box::new(MessageSpec {
                id,
                method: method.to_owned(),
                params: Map::new(),
                force_params: false,
                envelope: Envelope::ForEra,
                jsonrpc: json!("2.0"),
            })),
        }
    }

    fn spec(&mut self) -> Option<&mut MessageSpec> {
        match &mut self.body {
            Body::Message(m) => Some(&mut **m),
            Body::Raw(_) => None,
        }
    }

    fn modern_envelope(&mut self) -> Option<(&mut String, &mut Vec<&'static str>, &mut bool)> {
        let m = self.spec()?;
        if !matches!(m.envelope, Envelope::Modern { .. }) {
            m.envelope = Envelope::Modern {
                version: version::MODERN.into(),
                without: vec![],
                no_meta: false,
            };
        }
        match &mut m.envelope {
            Envelope::Modern {
                version,
                without,
                no_meta,
            } => Some((version, without, no_meta)),
            _ => None,
        }
    }

    /// Sets one params member.
    pub fn param(mut self, key: &str, value: Value) -> Self {
        if let Some(m) = self.spec() {
            m.params.insert(key.to_owned(), value);
        }
        self
    }

    /// Sets the params members from a JSON object (other values are ignored).
    pub fn params(mut self, value: Value) -> Self {
        if let (Some(m), Value::Object(obj)) = (self.spec(), value) {
            m.params.extend(obj);
            m.force_params = true;
        }
        self
    }

    /// Uses exactly this id (any JSON, including invalid ones).
    pub fn id(mut self, id: Value) -> Self {
        if let Some(m) = self.spec() {
            m.id = IdSpec::Fixed(id);
        }
        self
    }

    /// Overrides the `jsonrpc` member.
    pub fn jsonrpc(mut self, value: Value) -> Self {
        if let Some(m) = self.spec() {
            m.jsonrpc = value;
        }
        self
    }

    /// The modern envelope (explicitly, whatever the peer's era).
    pub fn modern(mut self) -> Self {
        self.modern_envelope();
        self
    }

    /// The modern envelope naming this protocol version.
    pub fn version(mut self, v: &str) -> Self {
        if let Some((version, _, _)) = self.modern_envelope() {
            *version = v.to_owned();
        }
        self
    }

    /// The modern envelope without one of its keys.
    pub fn without_meta(mut self, key: &'static str) -> Self {
        if let Some((_, without, _)) = self.modern_envelope() {
            without.push(key);
        }
        self
    }

    /// Params without any `_meta` (but still an object).
    pub fn no_meta(mut self) -> Self {
        if let Some((_, _, no_meta)) = self.modern_envelope() {
            *no_meta = true;
        }
        if let Some(m) = self.spec() {
            m.force_params = true;
        }
        self
    }

    /// No envelope at all (legacy messages).
    pub fn bare(mut self) -> Self {
        if let Some(m) = self.spec() {
            m.envelope = Envelope::None;
        }
        self
    }

    /// A probe-profile instruction in `_meta["dev.mcpspec/probe"]`.
    pub fn probe(self, instruction: Value) -> Self {
        self.meta_entry(meta::PROBE, instruction)
    }

    /// An extra `_meta` entry.
    pub fn meta_entry(mut self, key: &str, value: Value) -> Self {
        if let Some(m) = self.spec() {
            let meta = m.params.entry("_meta").or_insert_with(|| json!({}));
            if let Value::Object(obj) = meta {
                obj.insert(key.to_owned(), value);
            }
        }
        self
    }

    /// Renders the message for a peer whose next id is `next_id`. Returns the bytes and the id
    /// used (as JSON), if any.
    pub fn render(&self, next_id: i64, modern_era: bool) -> (Vec<u8>, Option<Value>) {
        let m = match &self.body {
            Body::Raw(bytes) => return (bytes.clone(), None),
            Body::Message(m) => m,
        };
        let mut obj = Map::new();
        obj.insert("jsonrpc".into(), m.jsonrpc.clone());
        let id = match &m.id {
            IdSpec::Auto => Some(Value::from(next_id)),
            IdSpec::Fixed(v) => Some(v.clone()),
            IdSpec::Absent => None,
        };
        if let Some(id) = &id {
            obj.insert("id".into(), id.clone());
        }
        obj.insert("method".into(), Value::from(m.method.as_str()));
        let mut params = m.params.clone();
        let envelope = match &m.envelope {
            Envelope::ForEra if modern_era => Some((version::MODERN.to_owned(), vec![], false)),
            Envelope::ForEra | Envelope::None => None,
            Envelope::Modern {
                version,
                without,
                no_meta,
            } => Some((version.clone(), without.clone(), *no_meta)),
        };
        if let Some((version, without, no_meta)) = envelope {
            let mut env = Map::new();
            env.insert(meta::PROTOCOL_VERSION.into(), Value::from(version));
            env.insert(meta::CLIENT_CAPABILITIES.into(), json!({}));
            env.insert(
                meta::CLIENT_INFO.into(),
                json!({"name": names::CLIENT, "version": env!("CARGO_PKG_VERSION")}),
            );
            for key in without {
                env.remove(key);
            }
            // Extra entries set with `meta_entry` win over the envelope's.
            if let Some(Value::Object(extra)) = params.remove("_meta") {
                env.extend(extra);
            }
            if !no_meta {
                params.insert("_meta".into(), Value::Object(env));
            }
        }
        if !params.is_empty() || m.force_params {
            obj.insert("params".into(), Value::Object(params));
        }
        let mut bytes = serde_json::to_vec(&Value::Object(obj)).unwrap_or_default();
        bytes.push(b'\n');
        (bytes, id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(o: Outgoing, modern: bool) -> Value {
        let (bytes, _) = o.render(1, modern);
        serde_json::from_slice(&bytes).unwrap()
    }

    #[test]
    fn modern_requests_carry_the_envelope() {
        let v = render(request("tools/list"), true);
        assert_eq!(v["id"], 1);
        assert_eq!(
            v["params"]["_meta"][meta::PROTOCOL_VERSION],
            version::MODERN
        );
        assert!(v["params"]["_meta"][meta::CLIENT_CAPABILITIES].is_object());
    }

    #[test]
    fn each_builder_breaks_one_rule() {
        let v = render(
            request("tools/list").without_meta(meta::CLIENT_CAPABILITIES),
            true,
        );
        assert!(
            v["params"]["_meta"]
                .get(meta::CLIENT_CAPABILITIES)
                .is_none()
        );
        assert!(v["params"]["_meta"].get(meta::PROTOCOL_VERSION).is_some());
        let v = render(request("tools/list").no_meta(), true);
        assert_eq!(v["params"], json!({}));
        let v = render(request("ping").bare(), true);
        assert!(v.get("params").is_none());
        let v = render(notification("x").modern(), false);
        assert!(v.get("id").is_none());
        assert!(v["params"]["_meta"].is_object());
    }

    #[test]
    fn probe_entries_join_the_envelope() {
        let v = render(request("tools/list").probe(json!({"answer": {}})), true);
        assert_eq!(v["params"]["_meta"][meta::PROBE], json!({"answer": {}}));
        assert!(v["params"]["_meta"].get(meta::PROTOCOL_VERSION).is_some());
    }
}
