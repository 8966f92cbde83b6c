//! Valid arguments from a tool's `inputSchema` (POL-31): the success path of `tools/call`, and
//! the valid seeds of `mcpspec fuzz`.
//!
//! [`arguments`] builds one instance of the schema (JSON Schema 2020-12 unless `$schema` names
//! another dialect) and validates it against the same schema with the jsonschema crate before
//! handing it out; what it cannot build is an [`Unbuildable`] saying why, never a guess.
//!
//! ```text
//! inputSchema ── $ref (within the document), allOf (merged), oneOf/anyOf (a branch merged
//!   │            with its parent), const, enum, default, examples, type (or what the keywords
//!   │            imply), then by type:
//!   │   object   required properties (and, for seeds other than 0, some optional ones), each
//!   │            from its own schema; minProperties; additionalProperties: false respected
//!   │   array    prefixItems, then `items` up to minItems (at least one)
//!   │   string   format, pattern (an instance of the regex, `regex-syntax`), min/maxLength
//!   │   number   minimum/maximum (inclusive or exclusive), multipleOf
//!   └─> candidate ── jsonschema validation ── valid: Ok · invalid: the next attempt
//! ```
//!
//! Deterministic: the same schema and seed give the same arguments. Seed 0 is the plain call
//! (defaults, examples, first enum values, first branches, only required properties); other
//! seeds vary values, branches and optional properties, within the schema.
//!
//! May import `tool_schema` (the dialect-aware compiler) and nothing else of the crate.

use std::fmt;

use serde_json::{Map, Number, Value, json};

use super::tool_schema;

/// Attempts per call: the first prefers what the schema offers (`default`, `examples`, the
/// first branch), the later ones vary. Each attempt ends in one validation.
const ATTEMPTS: u64 = 8;
/// The deepest schema nesting followed (`$ref` cycles end here).
const MAX_DEPTH: usize = 24;
/// The most items or properties one generated value gets.
const MAX_MEMBERS: u64 = 16;
/// The longest string built to reach a `minLength`.
const MAX_STRING: u64 = 4096;
/// The plain string of a string without constraints.
const PLAIN: &str = "mcpspec";

/// Why no valid arguments could be built for a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unbuildable {
    pub reason: String,
}

impl fmt::Display for Unbuildable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl Unbuildable {
    fn new(reason: impl Into<String>) -> Self {
        Unbuildable {
            reason: reason.into(),
        }
    }
}

/// Arguments valid under `input_schema`, validated with jsonschema before they are returned.
/// The same schema and seed give the same arguments; seed 0 is the plain call.
pub fn arguments(input_schema: &Value, seed: u64) -> Result<Value, Unbuildable> {
    if !input_schema.is_object() && !input_schema.is_boolean() {
        return Err(Unbuildable::new(format!(
            "the inputSchema is not a schema object: {}",
            mcpspec_core::text::preview(input_schema, 60)
        )));
    }
    let validator = tool_schema::compile(input_schema)
        .map_err(|e| Unbuildable::new(format!("the inputSchema does not compile: {e}")))?;
    let mut first_problem = None;
    for attempt in 0..ATTEMPTS {
        let mut generator = Generator {
            root: input_schema,
            rng: Rng::new(seed, attempt),
            plain: seed == 0 && attempt == 0,
            offered: attempt == 0,
        };
        let candidate = match generator.value(input_schema, 0) {
            Ok(v) => v,
            Err(e) => {
                first_problem.get_or_insert(e.reason);
                continue;
            }
        };
        let problem = validator.iter_errors(&candidate).next().map(|e| {
            let at = e.instance_path().to_string();
            format!(
                "the best candidate, {}, is not valid{}: {e}",
                mcpspec_core::text::preview(&candidate, 80),
                if at.is_empty() {
                    String::new()
                } else {
                    format!(" at {at}")
                }
            )
        });
        match problem {
            None => return Ok(candidate),
            Some(p) => {
                first_problem.get_or_insert(p);
            }
        }
    }
    Err(Unbuildable::new(first_problem.unwrap_or_else(|| {
        "no candidate satisfied the schema".to_owned()
    })))
}

/// A small deterministic generator (splitmix64): no dependency on a random source.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64, attempt: u64) -> Self {
        Rng(seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(attempt.wrapping_mul(0xD1B5_4A32_D192_ED03)))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

struct Generator<'a> {
    root: &'a Value,
    rng: Rng,
    /// The plain call: the first of everything, only what is required.
    plain: bool,
    /// Whether `default` and `examples` are taken when present.
    offered: bool,
}

impl Generator<'_> {
    /// An instance of `schema` (one attempt; the caller validates it).
    fn value(&mut self, schema: &Value, depth: usize) -> Result<Value, Unbuildable> {
        if depth > MAX_DEPTH {
            return Err(Unbuildable::new(format!(
                "the schema nests (or refers) deeper than {MAX_DEPTH} levels"
            )));
        }
        let schema = match schema {
            Value::Bool(true) => return Ok(Value::String(PLAIN.into())),
            Value::Bool(false) => {
                return Err(Unbuildable::new("a subschema is `false`: nothing is valid"));
            }
            Value::Object(_) => self.resolved(schema)?,
            other => {
                return Err(Unbuildable::new(format!(
                    "a subschema is not a schema: {}",
                    mcpspec_core::text::preview(other, 40)
                )));
            }
        };
        if let Some(c) = schema.get("const") {
            return Ok(c.clone());
        }
        if let Some(options) = schema.get("enum").and_then(Value::as_array) {
            let Some(first) = options.first() else {
                return Err(Unbuildable::new("an `enum` lists no value"));
            };
            return Ok(if self.plain {
                first.clone()
            } else {
                options[self.pick(options.len())].clone()
            });
        }
        if self.offered {
            if let Some(d) = schema.get("default") {
                return Ok(d.clone());
            }
            if let Some(e) = schema
                .get("examples")
                .and_then(Value::as_array)
                .and_then(|e| e.first())
            {
                return Ok(e.clone());
            }
        }
        match self.type_of(&schema) {
            Some("object") => self.object(&schema, depth),
            Some("array") => self.array(&schema, depth),
            Some("string") => self.string(&schema),
            Some("integer") => number(&schema, true, &mut self.rng, self.plain),
            Some("number") => number(&schema, false, &mut self.rng, self.plain),
            Some("boolean") => Ok(Value::Bool(self.plain || self.rng.coin())),
            Some("null") => Ok(Value::Null),
            Some(other) => Err(Unbuildable::new(format!("an unknown type `{other}`"))),
            None => Ok(Value::String(PLAIN.into())),
        }
    }

    /// `schema` with its `$ref`, `allOf` and one `oneOf`/`anyOf` branch merged in, repeatedly,
    /// so what remains has none of them at its top.
    fn resolved(&mut self, schema: &Value) -> Result<Value, Unbuildable> {
        let mut current = schema.clone();
        for _ in 0..MAX_DEPTH {
            let Some(obj) = current.as_object_mut() else {
                return Ok(current);
            };
            if let Some(reference) = obj.remove("$ref") {
                let target = self.target(&reference)?;
                current = merge(&current, &target);
                continue;
            }
            if let Some(all) = obj.remove("allOf") {
                let parts = all.as_array().cloned().unwrap_or_default();
                current = parts.iter().fold(current, |acc, part| merge(&acc, part));
                continue;
            }
            let branches = obj.remove("oneOf").or_else(|| obj.remove("anyOf"));
            if let Some(branches) = branches {
                let branches = branches.as_array().cloned().unwrap_or_default();
                if branches.is_empty() {
                    return Err(Unbuildable::new("a `oneOf`/`anyOf` has no branch"));
                }
                let branch = &branches[if self.plain {
                    0
                } else {
                    self.pick(branches.len())
                }];
                current = merge(&current, branch);
                continue;
            }
            return Ok(current);
        }
        Err(Unbuildable::new(format!(
            "the schema refers deeper than {MAX_DEPTH} levels (a `$ref` cycle?)"
        )))
    }

    /// The subschema a `$ref` names within the document (`#`, `#/$defs/x`, any JSON pointer).
    fn target(&self, reference: &Value) -> Result<Value, Unbuildable> {
        let Some(r) = reference.as_str() else {
            return Err(Unbuildable::new("a `$ref` that is not a string"));
        };
        let Some(pointer) = r.strip_prefix('#') else {
            return Err(Unbuildable::new(format!(
                "`$ref` {r} points outside the schema (mcpspec fetches nothing)"
            )));
        };
        let decoded = percent_decode(pointer);
        self.root
            .pointer(&decoded)
            .cloned()
            .ok_or_else(|| Unbuildable::new(format!("`$ref` {r} names nothing in the schema")))
    }

    /// The type to build: `type` (the plain call takes the first that is not `null`), else
    /// what the keywords imply.
    fn type_of<'s>(&mut self, schema: &'s Value) -> Option<&'s str> {
        match schema.get("type") {
            Some(Value::String(t)) => return Some(t),
            Some(Value::Array(types)) => {
                let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
                let useful: Vec<&str> = names.iter().copied().filter(|t| *t != "null").collect();
                return match (useful.is_empty(), self.plain) {
                    (true, _) => names.first().copied(),
                    (false, true) => useful.first().copied(),
                    (false, false) => Some(useful[self.pick(useful.len())]),
                };
            }
            _ => {}
        }
        let has = |keys: &[&str]| keys.iter().any(|k| schema.get(*k).is_some());
        if has(&[
            "properties",
            "required",
            "additionalProperties",
            "minProperties",
        ]) {
            Some("object")
        } else if has(&["items", "prefixItems", "minItems", "maxItems"]) {
            Some("array")
        } else if has(&["minLength", "maxLength", "pattern", "format"]) {
            Some("string")
        } else if has(&[
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ]) {
            Some("number")
        } else {
            None
        }
    }

    fn object(&mut self, schema: &Value, depth: usize) -> Result<Value, Unbuildable> {
        let empty = Map::new();
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let mut names: Vec<String> = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        let optional: Vec<&String> = properties.keys().filter(|k| !names.contains(k)).collect();
        let min = schema
            .get("minProperties")
            .and_then(Value::as_u64)
            .unwrap_or(0)
            .min(MAX_MEMBERS);
        for (n, name) in optional.into_iter().enumerate() {
            let wanted = (names.len() as u64) < min || (!self.plain && self.rng.coin());
            if wanted && (n as u64) < MAX_MEMBERS {
                names.push(name.clone());
            }
        }
        let additional = schema.get("additionalProperties");
        let closed = additional == Some(&Value::Bool(false));
        let mut extra = 0;
        while (names.len() as u64) < min && !closed {
            extra += 1;
            names.push(format!("{PLAIN}{extra}"));
        }
        let mut object = Map::new();
        for name in names {
            let sub = match properties.get(&name) {
                Some(s) => s.clone(),
                None => match additional {
                    Some(s) if s.is_object() => s.clone(),
                    _ => self.pattern_property(schema, &name).unwrap_or(json!({})),
                },
            };
            let value = self.value(&sub, depth + 1)?;
            object.insert(name, value);
        }
        Ok(Value::Object(object))
    }

    /// The schema of a `patternProperties` entry whose pattern `name` matches.
    fn pattern_property(&self, schema: &Value, name: &str) -> Option<Value> {
        let patterns = schema.get("patternProperties")?.as_object()?;
        patterns.iter().find_map(|(p, s)| {
            let compiled = tool_schema::compile(&json!({ "type": "string", "pattern": p })).ok()?;
            compiled.is_valid(&json!(name)).then(|| s.clone())
        })
    }

    fn array(&mut self, schema: &Value, depth: usize) -> Result<Value, Unbuildable> {
        let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = schema.get("maxItems").and_then(Value::as_u64);
        if min > MAX_MEMBERS {
            return Err(Unbuildable::new(format!(
                "an array needs at least {min} items (mcpspec builds at most {MAX_MEMBERS})"
            )));
        }
        let prefix = schema
            .get("prefixItems")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let items = schema
            .get("items")
            .filter(|i| i.is_object() || i.is_boolean());
        // One item shows the tool an element, when items may follow at all.
        let mut count = min.max(u64::from(items.is_some()));
        if !self.plain && items.is_some() {
            count += self.rng.below(3);
        }
        count = count.max(prefix.len() as u64);
        if let Some(max) = max {
            count = count.min(max);
        }
        let mut out = Vec::new();
        for i in 0..count {
            let sub = match (prefix.get(i as usize), items) {
                (Some(p), _) => p.clone(),
                (None, Some(Value::Bool(false))) | (None, None) if i >= prefix.len() as u64 => {
                    break;
                }
                (None, Some(s)) => s.clone(),
                (None, None) => json!({}),
            };
            let mut value = self.value(&sub, depth + 1)?;
            let unique = schema.get("uniqueItems") == Some(&Value::Bool(true));
            if unique && out.contains(&value) {
                value = self.distinct(&sub, depth, &out)?;
            }
            out.push(value);
        }
        Ok(Value::Array(out))
    }

    /// Another instance of `sub` than those in `taken` (for `uniqueItems`), a few tries.
    fn distinct(
        &mut self,
        sub: &Value,
        depth: usize,
        taken: &[Value],
    ) -> Result<Value, Unbuildable> {
        let plain = std::mem::replace(&mut self.plain, false);
        let offered = std::mem::replace(&mut self.offered, false);
        let mut found = None;
        for _ in 0..MAX_MEMBERS {
            let v = self.value(sub, depth + 1)?;
            if !taken.contains(&v) {
                found = Some(v);
                break;
            }
        }
        self.plain = plain;
        self.offered = offered;
        found.ok_or_else(|| Unbuildable::new("`uniqueItems`: no distinct item found"))
    }

    fn string(&mut self, schema: &Value) -> Result<Value, Unbuildable> {
        let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0);
        let max = schema.get("maxLength").and_then(Value::as_u64);
        if min > MAX_STRING || max.is_some_and(|m| m < min) {
            return Err(Unbuildable::new(format!(
                "a string of length {min}..{} cannot be built",
                max.map_or("".into(), |m| m.to_string())
            )));
        }
        if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
            return self.matching(pattern, min, max).map(Value::String);
        }
        let variant = (!self.plain).then(|| self.rng.below(1000));
        if let Some(format) = schema
            .get("format")
            .and_then(Value::as_str)
            .and_then(|f| format_instance(f, variant))
        {
            return Ok(Value::String(format));
        }
        let base = match variant {
            None => PLAIN.to_owned(),
            Some(n) => format!("{PLAIN}-{n}"),
        };
        Ok(Value::String(fit(&base, min, max)))
    }

    /// A string matching `pattern` (searched anywhere, as JSON Schema reads it) with a length
    /// in `min..=max`: repetitions grow until the length is reached.
    fn matching(
        &mut self,
        pattern: &str,
        min: u64,
        max: Option<u64>,
    ) -> Result<String, Unbuildable> {
        let hir = regex_syntax::ParserBuilder::new()
            .build()
            .parse(pattern)
            .map_err(|e| {
                Unbuildable::new(format!(
                    "`pattern` {pattern} uses syntax mcpspec builds no instance for ({})",
                    first_line(&e.to_string())
                ))
            })?;
        for extra in 0..=min.min(MAX_STRING) {
            let mut out = String::new();
            self.instance(&hir, extra as u32, &mut out)?;
            let len = out.chars().count() as u64;
            if len >= min {
                if max.is_some_and(|m| len > m) {
                    break;
                }
                return Ok(out);
            }
        }
        Err(Unbuildable::new(format!(
            "no instance of `pattern` {pattern} with a length in {min}..{}",
            max.map_or("".into(), |m| m.to_string())
        )))
    }

    /// Appends an instance of `hir` to `out`, every repetition `extra` times past its minimum
    /// (bounded by its maximum).
    fn instance(
        &mut self,
        hir: &regex_syntax::hir::Hir,
        extra: u32,
        out: &mut String,
    ) -> Result<(), Unbuildable> {
        use regex_syntax::hir::{Class, HirKind};
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => Ok(()),
            HirKind::Literal(lit) => {
                out.push_str(&String::from_utf8_lossy(&lit.0));
                Ok(())
            }
            HirKind::Class(Class::Unicode(class)) => {
                let ranges: Vec<(char, char)> = class
                    .ranges()
                    .iter()
                    .map(|r| (r.start(), r.end()))
                    .collect();
                let c = self.char_in(&ranges).ok_or_else(|| {
                    Unbuildable::new("a character class of the pattern matches nothing")
                })?;
                out.push(c);
                Ok(())
            }
            HirKind::Class(Class::Bytes(class)) => {
                let ranges: Vec<(char, char)> = class
                    .ranges()
                    .iter()
                    .filter(|r| r.start().is_ascii())
                    .map(|r| (char::from(r.start()), char::from(r.end().min(0x7f))))
                    .collect();
                let c = self.char_in(&ranges).ok_or_else(|| {
                    Unbuildable::new("a byte class of the pattern has no ASCII character")
                })?;
                out.push(c);
                Ok(())
            }
            HirKind::Repetition(rep) => {
                let mut times = rep.min.saturating_add(extra);
                if let Some(max) = rep.max {
                    times = times.min(max);
                }
                if !self.plain && rep.max.is_none_or(|m| m > times) && self.rng.coin() {
                    times += 1;
                }
                for _ in 0..times.min(MAX_STRING as u32) {
                    self.instance(&rep.sub, extra, out)?;
                }
                Ok(())
            }
            HirKind::Capture(cap) => self.instance(&cap.sub, extra, out),
            HirKind::Concat(parts) => {
                for part in parts {
                    self.instance(part, extra, out)?;
                }
                Ok(())
            }
            HirKind::Alternation(branches) => {
                let at = if self.plain {
                    0
                } else {
                    self.pick(branches.len())
                };
                self.instance(&branches[at], extra, out)
            }
        }
    }

    /// A character from the class: a letter or digit when it has one (the plain call takes
    /// the first), else a printable ASCII one, else its first.
    fn char_in(&mut self, ranges: &[(char, char)]) -> Option<char> {
        let contains = |c: char| ranges.iter().any(|(a, b)| *a <= c && c <= *b);
        let nice: Vec<char> = ('a'..='z')
            .chain('A'..='Z')
            .chain('0'..='9')
            .filter(|c| contains(*c))
            .collect();
        if !nice.is_empty() {
            return Some(if self.plain {
                nice[0]
            } else {
                nice[self.pick(nice.len())]
            });
        }
        (' '..='~')
            .find(|c| contains(*c))
            .or_else(|| ranges.first().map(|(a, _)| *a))
    }

    fn pick(&mut self, n: usize) -> usize {
        self.rng.below(n as u64) as usize
    }
}

/// `base` padded with `x` or cut to a length in `min..=max` (in characters).
fn fit(base: &str, min: u64, max: Option<u64>) -> String {
    let mut s: String = base.to_owned();
    while (s.chars().count() as u64) < min {
        s.push('x');
    }
    if let Some(max) = max {
        s = s.chars().take(max as usize).collect();
    }
    s
}

/// An instance of a well-known `format`: the plain one, or variant `n`.
fn format_instance(format: &str, n: Option<u64>) -> Option<String> {
    let tag = n.map_or(String::new(), |n| n.to_string());
    Some(match format {
        "date-time" => "2025-01-01T00:00:00Z".into(),
        "date" => "2025-01-01".into(),
        "time" => "00:00:00Z".into(),
        "duration" => "P1D".into(),
        "email" | "idn-email" => format!("mcpspec{tag}@example.com"),
        "hostname" | "idn-hostname" => format!("mcpspec{tag}.example.com"),
        "ipv4" => "127.0.0.1".into(),
        "ipv6" => "::1".into(),
        "uri" | "iri" | "uri-reference" | "iri-reference" => {
            format!("https://example.com/mcpspec{tag}")
        }
        "uri-template" => "https://example.com/{id}".into(),
        "uuid" => format!(
            "00000000-0000-4000-8000-{:012}",
            n.unwrap_or(0) % 1_000_000_000_000
        ),
        "json-pointer" => format!("/mcpspec{tag}"),
        "relative-json-pointer" => "0".into(),
        "regex" => "^mcpspec$".into(),
        _ => return None,
    })
}

/// A number within the schema's bounds: 1 when allowed (the plain call), else the lowest
/// allowed value, honouring `multipleOf`.
fn number(schema: &Value, integer: bool, rng: &mut Rng, plain: bool) -> Result<Value, Unbuildable> {
    let f = |k: &str| schema.get(k).and_then(Value::as_f64);
    // Draft 4 writes exclusive bounds as booleans beside minimum/maximum.
    let flag = |k: &str| schema.get(k) == Some(&Value::Bool(true));
    let (mut lo, mut lo_open) = (f("minimum"), flag("exclusiveMinimum"));
    if let Some(x) = f("exclusiveMinimum") {
        if lo.is_none_or(|l| x >= l) {
            (lo, lo_open) = (Some(x), true);
        }
    }
    let (mut hi, mut hi_open) = (f("maximum"), flag("exclusiveMaximum"));
    if let Some(x) = f("exclusiveMaximum") {
        if hi.is_none_or(|h| x <= h) {
            (hi, hi_open) = (Some(x), true);
        }
    }
    let step = f("multipleOf").filter(|m| *m > 0.0);
    let integer = integer || step.is_some_and(|m| m.fract() == 0.0);
    let allowed = |x: f64| {
        lo.is_none_or(|l| if lo_open { x > l } else { x >= l })
            && hi.is_none_or(|h| if hi_open { x < h } else { x <= h })
            && step.is_none_or(|m| ((x / m).round() * m - x).abs() < 1e-9)
            && (!integer || x.fract() == 0.0)
    };
    // The lowest candidate above `lo` on the grid (integers, or multiples of the step).
    let grid = step.unwrap_or(if integer { 1.0 } else { 0.5 });
    let start = lo.map_or(0.0, |l| (l / grid).floor() * grid);
    let mut candidates: Vec<f64> = Vec::new();
    if !plain {
        let span = 1 + rng.below(50);
        candidates.push(start + span as f64 * grid);
    }
    candidates.push(1.0);
    candidates.extend((0..4).map(|i| start + f64::from(i) * grid));
    if let (Some(l), Some(h)) = (lo, hi) {
        candidates.push((l + h) / 2.0);
    }
    let Some(x) = candidates.into_iter().find(|x| allowed(*x)) else {
        return Err(Unbuildable::new(format!(
            "no {} within the bounds of {}",
            if integer { "integer" } else { "number" },
            mcpspec_core::text::preview(schema, 80)
        )));
    };
    // A whole number is written as one (`1`, not `1.0`), which every JSON number type accepts.
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        return Ok(Value::from(x as i64));
    }
    Number::from_f64(x)
        .map(Value::Number)
        .ok_or_else(|| Unbuildable::new("a number that is not finite"))
}

/// `a` with the keywords of `b`: properties and required are united, the rest of `b` is taken
/// where `a` has none (a subschema narrowing its parent).
fn merge(a: &Value, b: &Value) -> Value {
    let (Some(a_obj), Some(b_obj)) = (a.as_object(), b.as_object()) else {
        return match b {
            Value::Bool(true) => a.clone(),
            _ => b.clone(),
        };
    };
    let mut out = a_obj.clone();
    for (key, value) in b_obj {
        match (key.as_str(), out.get_mut(key)) {
            ("properties", Some(Value::Object(mine))) => {
                if let Some(theirs) = value.as_object() {
                    for (name, schema) in theirs {
                        let merged = match mine.get(name) {
                            Some(existing) => merge(existing, schema),
                            None => schema.clone(),
                        };
                        mine.insert(name.clone(), merged);
                    }
                }
            }
            ("required", Some(Value::Array(mine))) => {
                for name in value.as_array().into_iter().flatten() {
                    if !mine.contains(name) {
                        mine.push(name.clone());
                    }
                }
            }
            (_, Some(_)) => {}
            (_, None) => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

/// `%xx` escapes of a `$ref` fragment, decoded.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn first_line(s: &str) -> &str {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or(s).trim()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn valid(schema: &Value, args: &Value) -> bool {
        tool_schema::compile(schema).is_ok_and(|v| v.is_valid(args))
    }

    #[test]
    fn the_plain_call_fills_what_is_required_with_what_the_schema_offers() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "number"},
                "b": {"type": "integer", "minimum": 3},
                "unit": {"type": "string", "enum": ["m", "ft"]},
                "label": {"type": ["null", "string"]},
                "flag": {"type": "boolean", "default": false},
                "nested": {"type": "object", "properties": {"x": {"type": "array"}}, "required": ["x"]},
                "optional": {"type": "string"}
            },
            "required": ["a", "b", "unit", "label", "flag", "nested"]
        });
        assert_eq!(
            arguments(&schema, 0),
            Ok(
                json!({"a": 1, "b": 3, "unit": "m", "label": "mcpspec", "flag": false,
                      "nested": {"x": []}})
            )
        );
        assert_eq!(arguments(&json!({"type": "object"}), 0), Ok(json!({})));
    }

    #[test]
    fn refs_branches_and_bounds_give_valid_arguments_for_every_seed() {
        let schema = json!({
            "type": "object",
            "$defs": {
                "point": {"type": "object", "properties": {
                    "x": {"type": "integer", "exclusiveMinimum": 10, "maximum": 20, "multipleOf": 3},
                    "y": {"type": "number", "minimum": -1.5, "exclusiveMaximum": -1}
                }, "required": ["x", "y"], "additionalProperties": false}
            },
            "properties": {
                "at": {"$ref": "#/$defs/point"},
                "code": {"type": "string", "pattern": "^[A-Z]{2}-\\d{3,}$"},
                "name": {"type": "string", "minLength": 10, "maxLength": 12},
                "tags": {"type": "array", "items": {"type": "string", "format": "email"},
                         "minItems": 2, "uniqueItems": true},
                "mode": {"oneOf": [{"const": "fast"}, {"type": "integer", "minimum": 5}]},
                "both": {"allOf": [{"type": "object", "properties": {"p": {"type": "string"}},
                                    "required": ["p"]},
                                   {"properties": {"q": {"type": "boolean"}}, "required": ["q"]}]},
                "when": {"type": "string", "format": "date-time"}
            },
            "required": ["at", "code", "name", "tags", "mode", "both", "when"]
        });
        for seed in 0..64 {
            let args = arguments(&schema, seed).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert!(valid(&schema, &args), "seed {seed}: {args}");
            assert_eq!(arguments(&schema, seed).unwrap(), args, "deterministic");
        }
        let plain = arguments(&schema, 0).unwrap();
        assert_eq!(plain["at"], json!({"x": 12, "y": -1.5}));
        assert_eq!(plain["code"], json!("AA-000"));
        assert_eq!(plain["mode"], json!("fast"));
        let varied: std::collections::BTreeSet<String> = (0..16)
            .map(|s| arguments(&schema, s).unwrap().to_string())
            .collect();
        assert!(varied.len() > 8, "seeds vary the arguments: {varied:?}");
    }

    #[test]
    fn what_cannot_be_built_is_said_not_guessed() {
        let cases = [
            (
                json!({"type": "object", "properties": {"a": false}, "required": ["a"]}),
                "false",
            ),
            (
                json!({"type": "object", "properties": {"a": {"$ref": "https://x/y"}},
                    "required": ["a"]}),
                "compile",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "(a)\\1"}},
                    "required": ["a"]}),
                "pattern",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "integer", "minimum": 2,
                    "maximum": 1}}, "required": ["a"]}),
                "bounds",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 5,
                    "maxLength": 2}}, "required": ["a"]}),
                "length",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "not": {"type":
                    "string"}}}, "required": ["a"]}),
                "not valid",
            ),
            (
                json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}},
                    "$defs": {"a": {"$ref": "#/$defs/a"}}, "required": ["a"]}),
                "deeper",
            ),
            (json!("nope"), "not a schema object"),
        ];
        for (schema, words) in cases {
            let got = arguments(&schema, 0);
            assert!(
                got.as_ref().is_err_and(|e| e.reason.contains(words)),
                "{schema}: {got:?}"
            );
        }
    }

    #[test]
    fn a_plain_string_without_constraints_is_mcpspec() {
        let schema = json!({"type": "object", "properties": {"text": {"type": "string"}},
                            "required": ["text"]});
        assert_eq!(arguments(&schema, 0), Ok(json!({"text": "mcpspec"})));
    }
}
