//! Reading a line as the peers on the other end may read it: a JSON reader over raw bytes that
//! never builds a value tree, tolerates what lenient peers tolerate, and says what a strict
//! peer would refuse.
//!
//! ```text
//! bytes --read--> Doc { root: Val, facts }          one validating pass, any depth, no recursion
//!                  |      `- invalid UTF-8? lone surrogate escapes? numbers past f64? depth?
//!                  +--members/elements/get--> Val   spans into the bytes, found on demand
//!                  `--text(Val, Decoder)--> Text    code points, as a strict, a replacing or an
//!                                                   escaping (surrogateescape) decoder sees them
//! ```
//!
//! RFC 8259 §8.2 lets a string hold a lone surrogate escape (`"\udcff"`): the grammar accepts
//! it, so this reader does (a strict peer like serde_json does not: that is a fact of the
//! line, [`Facts::lone_surrogate`]). Raw bytes that are not UTF-8 are accepted inside strings
//! and decoded as the chosen [`Decoder`] would; outside strings they are a syntax error, as
//! they are for every decoder.
//!
//! [`IdKey`] is a JSON-RPC id as a JSON value: numbers by their exact value (any size, sign or
//! exponent form: `1e2`, `100` and `100.0` are one key), strings by their code points (a lone
//! surrogate included), so an id is compared exactly as it was sent.
//!
//! A leaf: imports nothing from the crate.

use std::fmt;

/// How the bytes of a string that are not UTF-8 are decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoder {
    /// As U+FFFD, one per maximal invalid sequence (WHATWG, Rust's `from_utf8_lossy`, Python's
    /// `errors="replace"`).
    Replace,
    /// As lone surrogates U+DC80..U+DCFF, one per byte (Python's `errors="surrogateescape"`):
    /// what a Python server echoes back as `\udcXX`.
    Escape,
}

impl Decoder {
    pub const ALL: [Decoder; 2] = [Decoder::Replace, Decoder::Escape];
}

/// What kind of JSON value a [`Val`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Null,
    True,
    False,
    Number,
    String,
    Array,
    Object,
}

/// One JSON value of a [`Doc`]: its kind and the span of its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Val {
    pub kind: Kind,
    start: usize,
    end: usize,
}

/// What a strict peer would object to in a line that is valid by the grammar.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Facts {
    /// Bytes that are not UTF-8 (inside strings: anywhere else they are a syntax error).
    pub invalid_utf8: bool,
    /// A `\uD800`..`\uDFFF` escape that is not half of a pair.
    pub lone_surrogate: bool,
    /// A number too large for an IEEE double (serde_json refuses it; JavaScript reads Infinity).
    pub overflow: bool,
    /// The deepest nesting of arrays and objects.
    pub depth: usize,
}

/// Why bytes are not JSON text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadError {
    /// Nothing but whitespace.
    Empty,
    /// The grammar breaks at this byte offset.
    Syntax { at: usize },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Empty => f.write_str("an empty line"),
            ReadError::Syntax { at } => write!(f, "not JSON (at byte {at})"),
        }
    }
}

/// A line that is JSON text: its bytes, its root value and its facts.
#[derive(Debug, Clone, Copy)]
pub struct Doc<'a> {
    bytes: &'a [u8],
    pub root: Val,
    pub facts: Facts,
}

/// Reads `bytes` as one JSON text (surrounding whitespace allowed).
pub fn read(bytes: &[u8]) -> Result<Doc<'_>, ReadError> {
    let mut facts = Facts {
        invalid_utf8: std::str::from_utf8(bytes).is_err(),
        ..Facts::default()
    };
    let mut cursor = Cursor { bytes, at: 0 };
    cursor.whitespace();
    if cursor.at == bytes.len() {
        return Err(ReadError::Empty);
    }
    let root = cursor.value(&mut facts)?;
    cursor.whitespace();
    if cursor.at != bytes.len() {
        return Err(cursor.error());
    }
    Ok(Doc { bytes, root, facts })
}

impl<'a> Doc<'a> {
    /// The members of an object, in order (empty for any other value).
    pub fn members(&self, object: Val) -> Vec<(Val, Val)> {
        let mut out = Vec::new();
        if object.kind != Kind::Object {
            return out;
        }
        let mut at = object.start + 1;
        loop {
            at = skip_whitespace(self.bytes, at);
            if self.bytes.get(at) != Some(&b'"') {
                return out;
            }
            let key = Val {
                kind: Kind::String,
                start: at,
                end: skip_value(self.bytes, at),
            };
            at = skip_whitespace(self.bytes, key.end) + 1; // the colon
            at = skip_whitespace(self.bytes, at);
            let value = self.value_at(at);
            out.push((key, value));
            at = skip_whitespace(self.bytes, value.end);
            if self.bytes.get(at) != Some(&b',') {
                return out;
            }
            at += 1;
        }
    }

    /// The elements of an array, in order (empty for any other value).
    pub fn elements(&self, array: Val) -> Vec<Val> {
        let mut out = Vec::new();
        if array.kind != Kind::Array {
            return out;
        }
        let mut at = skip_whitespace(self.bytes, array.start + 1);
        if self.bytes.get(at) == Some(&b']') {
            return out;
        }
        loop {
            let value = self.value_at(at);
            out.push(value);
            at = skip_whitespace(self.bytes, value.end);
            if self.bytes.get(at) != Some(&b',') {
                return out;
            }
            at = skip_whitespace(self.bytes, at + 1);
        }
    }

    /// The members of an object, read once for several lookups.
    pub fn object(&self, object: Val) -> Object<'_, 'a> {
        Object {
            doc: self,
            value: object,
            members: self.members(object),
        }
    }

    /// The member `key` of an object; the last one when the key repeats (as most parsers
    /// keep it). For one lookup; [`Doc::object`] for several.
    pub fn get(&self, object: Val, key: &str) -> Option<Val> {
        self.object(object).get(key)
    }

    /// Whether a value is the string `text` (under any decoder: bytes that are not UTF-8
    /// never decode to text that is).
    pub fn is(&self, value: Val, text: &str) -> bool {
        if value.kind != Kind::String {
            return false;
        }
        let raw = &self.bytes[value.start + 1..value.end - 1];
        if memchr::memchr(b'\\', raw).is_none() {
            return raw == text.as_bytes();
        }
        self.text(value, Decoder::Escape) == Text::from(text)
    }

    /// A string's text as `decoder` reads it (empty for any other value).
    pub fn text(&self, value: Val, decoder: Decoder) -> Text {
        if value.kind != Kind::String {
            return Text::default();
        }
        decode_string(&self.bytes[value.start + 1..value.end - 1], decoder)
    }

    /// A string value as Rust text, lone surrogates and undecodable bytes as U+FFFD (for
    /// comparisons with names, and messages).
    pub fn lossy(&self, value: Val) -> String {
        self.text(value, Decoder::Replace).to_string_lossy()
    }

    /// The exact bytes of a value.
    pub fn raw(&self, value: Val) -> &'a [u8] {
        &self.bytes[value.start..value.end]
    }

    /// An integer value (`-32601`, `1e3`), if the number is one and fits an i64.
    pub fn integer(&self, value: Val) -> Option<i64> {
        if value.kind != Kind::Number {
            return None;
        }
        Number::parse(self.raw(value))?.integer()
    }

    /// Whether a number is an integer (of any size): no fraction once its exponent is applied.
    pub fn is_integer(&self, value: Val) -> bool {
        value.kind == Kind::Number && Number::parse(self.raw(value)).is_some_and(|n| n.exp >= 0)
    }

    /// The id keys a value gives as `decoder` reads it: its own and, for a number an IEEE
    /// double cannot hold exactly, the double it rounds to (RFC 8259 §6 lets a peer read
    /// numbers as doubles; what it then echoes is that double).
    pub fn id_keys(&self, value: Val, decoder: Decoder) -> Vec<IdKey> {
        let own = self.id_key(value, decoder);
        let mut keys = vec![own.clone()];
        if value.kind == Kind::Number {
            if let Some(rounded) = rounded_key(self.raw(value)) {
                if rounded != own {
                    keys.push(rounded);
                }
            }
        }
        keys
    }

    /// The id key of a value as `decoder` reads it.
    pub fn id_key(&self, value: Val, decoder: Decoder) -> IdKey {
        match value.kind {
            Kind::Null => IdKey::null(),
            Kind::True => IdKey("b:true".into()),
            Kind::False => IdKey("b:false".into()),
            Kind::Number => IdKey::number(self.raw(value)),
            Kind::String => IdKey(format!("s:{}", self.text(value, decoder))),
            Kind::Array | Kind::Object => IdKey(format!("x:{}", compact(self.raw(value)))),
        }
    }

    fn value_at(&self, at: usize) -> Val {
        let kind = match self.bytes.get(at) {
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b'"') => Kind::String,
            Some(b't') => Kind::True,
            Some(b'f') => Kind::False,
            Some(b'n') => Kind::Null,
            _ => Kind::Number,
        };
        Val {
            kind,
            start: at,
            end: skip_value(self.bytes, at),
        }
    }
}

/// The spans of the `id` members of an object, or of each object of an array, found by a scan
/// that stops quietly where the bytes stop being JSON: a line cut short or mangled still shows
/// the ids before the damage (a lenient peer may still read them).
pub fn id_spans(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut at = skip_whitespace(bytes, 0);
    match bytes.get(at) {
        Some(b'{') => {
            scan_object(bytes, at, &mut out);
        }
        Some(b'[') => loop {
            at = skip_whitespace(bytes, at + 1);
            if bytes.get(at) != Some(&b'{') {
                break;
            }
            let Some(end) = scan_object(bytes, at, &mut out) else {
                break;
            };
            at = skip_whitespace(bytes, end);
            if bytes.get(at) != Some(&b',') {
                break;
            }
        },
        _ => {}
    }
    out
}

/// Scans the members of the object whose `{` is at `at`, noting the span of each `id` value;
/// where the object ends, if it does.
fn scan_object(bytes: &[u8], at: usize, ids: &mut Vec<std::ops::Range<usize>>) -> Option<usize> {
    let mut at = at + 1;
    loop {
        at = skip_whitespace(bytes, at);
        match bytes.get(at) {
            Some(b'}') => return Some(at + 1),
            Some(b'"') => {}
            _ => return None,
        }
        let key_end = skip_string(bytes, at);
        let key = bytes.get(at + 1..key_end.checked_sub(1)?)?;
        let is_id = decode_string(key, Decoder::Escape) == Text::from("id");
        at = skip_whitespace(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let start = skip_whitespace(bytes, at + 1);
        if start >= bytes.len() {
            return None;
        }
        let end = skip_value(bytes, start);
        at = skip_whitespace(bytes, end);
        match bytes.get(at) {
            Some(b',' | b'}') if end > start => {}
            _ => return None,
        }
        if is_id {
            ids.push(start..end);
        }
        if bytes[at] == b'}' {
            return Some(at + 1);
        }
        at += 1;
    }
}

/// The members of one object of a [`Doc`].
#[derive(Debug)]
pub struct Object<'d, 'a> {
    doc: &'d Doc<'a>,
    /// The value read (its members are empty unless it is an object).
    pub value: Val,
    members: Vec<(Val, Val)>,
}

impl Object<'_, '_> {
    /// The member `key`; the last one when the key repeats (as most parsers keep it).
    pub fn get(&self, key: &str) -> Option<Val> {
        self.members
            .iter()
            .rev()
            .find(|(k, _)| self.doc.is(*k, key))
            .map(|(_, v)| *v)
    }

    /// Every member `key`, in order.
    pub fn get_all(&self, key: &str) -> Vec<Val> {
        self.members
            .iter()
            .filter(|(k, _)| self.doc.is(*k, key))
            .map(|(_, v)| *v)
            .collect()
    }

    /// Whether a key appears more than once (compared as text: `"id"` and `"\u0069d"` are one).
    pub fn repeats_a_key(&self) -> bool {
        let raw = |k: &Val| &self.doc.bytes[k.start + 1..k.end - 1];
        let escaped = self.members.iter().any(|(k, _)| raw(k).contains(&b'\\'));
        if !escaped {
            let mut keys: Vec<&[u8]> = self.members.iter().map(|(k, _)| raw(k)).collect();
            keys.sort_unstable();
            return keys.windows(2).any(|w| w[0] == w[1]);
        }
        let keys: Vec<Text> = self
            .members
            .iter()
            .map(|(k, _)| self.doc.text(*k, Decoder::Escape))
            .collect();
        keys.iter()
            .enumerate()
            .any(|(i, k)| keys[i + 1..].contains(k))
    }
}

/// A JSON-RPC id as a JSON value, comparable exactly: `n:` and a number's exact value,
/// `s:` and a string's code points, `null`, `b:` a boolean, `x:` anything else's compact text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IdKey(String);

impl IdKey {
    pub fn null() -> IdKey {
        IdKey("null".into())
    }

    pub fn is_null(&self) -> bool {
        self.0 == "null"
    }

    /// The key of a string id.
    pub fn string(text: &str) -> IdKey {
        IdKey(format!("s:{}", Text::from(text)))
    }

    /// The key of a number's text (its exact value), or of the text itself when it is not a
    /// JSON number.
    pub fn number(raw: &[u8]) -> IdKey {
        match Number::parse(raw) {
            Some(n) => IdKey(format!("n:{n}")),
            None => IdKey(format!("x:{}", String::from_utf8_lossy(raw))),
        }
    }

    /// The key of an id written as JSON text (the whole text one value), if it is.
    pub fn of_json(text: &[u8]) -> Option<IdKey> {
        let doc = read(text).ok()?;
        Some(doc.id_key(doc.root, Decoder::Escape))
    }
}

impl fmt::Display for IdKey {
    /// The id as JSON would write it, near enough for a message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.split_once(':') {
            Some(("s", text)) => write!(f, "\"{text}\""),
            Some(("n" | "b" | "x", text)) => f.write_str(text),
            _ => f.write_str(&self.0),
        }
    }
}

/// Decoded string content: code points, lone surrogates included.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text(Vec<u32>);

impl Text {
    /// As Rust text, each lone surrogate as U+FFFD.
    pub fn to_string_lossy(&self) -> String {
        self.0
            .iter()
            .map(|&c| char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text(s.chars().map(u32::from).collect())
    }
}

impl fmt::Display for Text {
    /// The text, with a backslash doubled and a lone surrogate as `\u{dcff}` (so two texts
    /// display alike only if they are alike).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &c in &self.0 {
            match char::from_u32(c) {
                Some('\\') => f.write_str("\\\\")?,
                Some(ch) => write!(f, "{ch}")?,
                None => write!(f, "\\u{{{c:x}}}")?,
            }
        }
        Ok(())
    }
}

/// A JSON number as sign, significant digits and a power of ten, normalized so that equal
/// values are equal (`-0` is `0`; `1.50e1` is `15`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Number {
    negative: bool,
    /// No leading or trailing zeros; empty for zero.
    digits: String,
    exp: i128,
}

impl Number {
    fn parse(raw: &[u8]) -> Option<Number> {
        let text = std::str::from_utf8(raw).ok()?;
        let (negative, rest) = match text.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, text),
        };
        let (mantissa, exp) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], parse_exponent(&rest[i + 1..])?),
            None => (rest, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if int.is_empty() || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut digits: String = int.chars().chain(frac.chars()).collect();
        let mut exp = exp - frac.len() as i128;
        let leading = digits.len() - digits.trim_start_matches('0').len();
        digits.drain(..leading);
        let trailing = digits.len() - digits.trim_end_matches('0').len();
        digits.truncate(digits.len() - trailing);
        exp += trailing as i128;
        if digits.is_empty() {
            return Some(Number {
                negative: false,
                digits,
                exp: 0,
            });
        }
        Some(Number {
            negative,
            digits,
            exp,
        })
    }

    fn integer(&self) -> Option<i64> {
        if self.exp < 0 {
            return None;
        }
        if self.digits.is_empty() {
            return Some(0);
        }
        let zeros = usize::try_from(self.exp).ok().filter(|&z| z <= 19)?;
        let text = format!(
            "{}{}{}",
            if self.negative { "-" } else { "" },
            self.digits,
            "0".repeat(zeros)
        );
        text.parse().ok()
    }
}

impl fmt::Display for Number {
    /// One spelling per value: an integer in full (`18446744073709552000`), a fraction with its
    /// point (`0.0015`), anything else in scientific form (`1.5e30`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const PLAIN: i128 = 21;
        if self.digits.is_empty() {
            return f.write_str("0");
        }
        let sign = if self.negative { "-" } else { "" };
        let len = self.digits.len() as i128;
        if (0..=PLAIN).contains(&self.exp) {
            let zeros = "0".repeat(self.exp as usize);
            return write!(f, "{sign}{}{zeros}", self.digits);
        }
        if self.exp < 0 && -self.exp <= len + PLAIN {
            let point = len + self.exp;
            return if point > 0 {
                let (int, frac) = self.digits.split_at(point as usize);
                write!(f, "{sign}{int}.{frac}")
            } else {
                write!(
                    f,
                    "{sign}0.{}{}",
                    "0".repeat((-point) as usize),
                    self.digits
                )
            };
        }
        let (first, rest) = self.digits.split_at(1);
        let point = if rest.is_empty() { "" } else { "." };
        write!(f, "{sign}{first}{point}{rest}e{}", self.exp + len - 1)
    }
}

/// An exponent's value, saturated far beyond any double (so `1e99999999999999999999` is one
/// huge number, not a parse failure).
fn parse_exponent(text: &str) -> Option<i128> {
    const CAP: i128 = 1 << 64;
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut value: i128 = 0;
    for b in digits.bytes() {
        value = (value * 10 + i128::from(b - b'0')).min(CAP);
    }
    Some(if negative { -value } else { value })
}

/// The key of the double a number rounds to, when that is a finite double.
fn rounded_key(raw: &[u8]) -> Option<IdKey> {
    let value: f64 = std::str::from_utf8(raw).ok()?.parse().ok()?;
    if !value.is_finite() {
        return None;
    }
    // `{:e}` writes the shortest digits that read back as the same double, as JavaScript and
    // Python print it.
    Some(IdKey::number(format!("{value:e}").as_bytes()))
}

/// A value's text without the whitespace between tokens.
fn compact(raw: &[u8]) -> String {
    let mut out = Vec::with_capacity(raw.len());
    let mut in_string = false;
    let mut escaped = false;
    for &b in raw {
        if in_string {
            out.push(b);
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            if b == b'"' {
                in_string = true;
            }
            out.push(b);
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The content of a string (between its quotes) as `decoder` reads it.
fn decode_string(raw: &[u8], decoder: Decoder) -> Text {
    let mut out = Vec::with_capacity(raw.len());
    let mut at = 0;
    while at < raw.len() {
        let next = memchr::memchr(b'\\', &raw[at..]).map_or(raw.len(), |i| at + i);
        decode_raw(&raw[at..next], decoder, &mut out);
        if next == raw.len() {
            break;
        }
        at = next + 1;
        let Some(&e) = raw.get(at) else { break };
        at += 1;
        let simple = match e {
            b'"' => Some('"'),
            b'\\' => Some('\\'),
            b'/' => Some('/'),
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            _ => None,
        };
        if let Some(c) = simple {
            out.push(u32::from(c));
            continue;
        }
        let Some(unit) = hex4(raw.get(at..at + 4)) else {
            break;
        };
        at += 4;
        if (0xD800..0xDC00).contains(&unit) {
            let low = (raw.get(at) == Some(&b'\\') && raw.get(at + 1) == Some(&b'u'))
                .then(|| hex4(raw.get(at + 2..at + 6)))
                .flatten()
                .filter(|l| (0xDC00..0xE000).contains(l));
            if let Some(low) = low {
                at += 6;
                out.push(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
                continue;
            }
        }
        out.push(unit);
    }
    Text(out)
}

/// Raw string bytes (no escapes) as `decoder` reads them.
fn decode_raw(raw: &[u8], decoder: Decoder, out: &mut Vec<u32>) {
    for chunk in raw.utf8_chunks() {
        out.extend(chunk.valid().chars().map(u32::from));
        let invalid = chunk.invalid();
        if invalid.is_empty() {
            continue;
        }
        match decoder {
            Decoder::Replace => out.push(u32::from(char::REPLACEMENT_CHARACTER)),
            Decoder::Escape => out.extend(invalid.iter().map(|&b| 0xDC00 + u32::from(b))),
        }
    }
}

fn hex4(digits: Option<&[u8]>) -> Option<u32> {
    let digits = std::str::from_utf8(digits?).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The end of the (valid) value starting at `at`.
fn skip_value(bytes: &[u8], at: usize) -> usize {
    match bytes.get(at) {
        Some(b'"') => skip_string(bytes, at),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut i = at;
            while let Some(&b) = bytes.get(i) {
                match b {
                    b'"' => {
                        i = skip_string(bytes, i);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            bytes.len()
        }
        _ => {
            let mut i = at;
            while bytes
                .get(i)
                .is_some_and(|b| !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
            {
                i += 1;
            }
            i
        }
    }
}

/// The end of the string whose opening quote is at `at`.
fn skip_string(bytes: &[u8], at: usize) -> usize {
    let mut i = at + 1;
    loop {
        match memchr::memchr2(b'"', b'\\', &bytes[i.min(bytes.len())..]) {
            Some(j) if bytes[i + j] == b'\\' => i += j + 2,
            Some(j) => return i + j + 1,
            None => return bytes.len(),
        }
    }
}

/// The validating pass.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// An open container of the validating pass.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Array,
    Object,
}

impl Cursor<'_> {
    fn error(&self) -> ReadError {
        ReadError::Syntax { at: self.at }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn whitespace(&mut self) {
        self.at = skip_whitespace(self.bytes, self.at);
    }

    fn expect(&mut self, byte: u8) -> Result<(), ReadError> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error())
        }
    }

    /// One value of any depth, iteratively (a stack of open containers, no recursion).
    fn value(&mut self, facts: &mut Facts) -> Result<Val, ReadError> {
        let start = self.at;
        let mut open: Vec<Open> = Vec::new();
        let mut root_kind = None;
        loop {
            // A value is due.
            self.whitespace();
            let kind = match self.peek() {
                Some(b'{') => {
                    self.at += 1;
                    self.whitespace();
                    facts.depth = facts.depth.max(open.len() + 1);
                    if self.peek() == Some(b'}') {
                        self.at += 1;
                    } else {
                        open.push(Open::Object);
                        self.key(facts)?;
                        root_kind.get_or_insert(Kind::Object);
                        continue;
                    }
                    Kind::Object
                }
                Some(b'[') => {
                    self.at += 1;
                    self.whitespace();
                    facts.depth = facts.depth.max(open.len() + 1);
                    if self.peek() == Some(b']') {
                        self.at += 1;
                    } else {
                        open.push(Open::Array);
                        root_kind.get_or_insert(Kind::Array);
                        continue;
                    }
                    Kind::Array
                }
                Some(b'"') => {
                    self.string(facts)?;
                    Kind::String
                }
                Some(b't') => self.literal(b"true", Kind::True)?,
                Some(b'f') => self.literal(b"false", Kind::False)?,
                Some(b'n') => self.literal(b"null", Kind::Null)?,
                Some(b'-' | b'0'..=b'9') => {
                    self.number(facts)?;
                    Kind::Number
                }
                _ => return Err(self.error()),
            };
            root_kind.get_or_insert(kind);
            // A value ended: close what it ends, up to the next value due.
            loop {
                let Some(&top) = open.last() else {
                    return Ok(Val {
                        kind: root_kind.unwrap_or(kind),
                        start,
                        end: self.at,
                    });
                };
                self.whitespace();
                match (top, self.peek()) {
                    (_, Some(b',')) => {
                        self.at += 1;
                        if top == Open::Object {
                            self.whitespace();
                            self.key(facts)?;
                        }
                        break;
                    }
                    (Open::Array, Some(b']')) | (Open::Object, Some(b'}')) => {
                        self.at += 1;
                        open.pop();
                    }
                    _ => return Err(self.error()),
                }
            }
        }
    }

    /// A member's key and its colon.
    fn key(&mut self, facts: &mut Facts) -> Result<(), ReadError> {
        if self.peek() != Some(b'"') {
            return Err(self.error());
        }
        self.string(facts)?;
        self.whitespace();
        self.expect(b':')
    }

    fn literal(&mut self, word: &[u8], kind: Kind) -> Result<Kind, ReadError> {
        if self.bytes[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(kind)
        } else {
            Err(self.error())
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        self.at - start
    }

    fn number(&mut self, facts: &mut Facts) -> Result<(), ReadError> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error()),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return Err(self.error());
            }
        }
        let mut exponent = false;
        if matches!(self.peek(), Some(b'e' | b'E')) {
            exponent = true;
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return Err(self.error());
            }
        }
        // A double holds up to about 1.8e308: only an exponent or 309 digits can pass it.
        const LONGEST_FINITE: usize = 309;
        if exponent || self.at - start > LONGEST_FINITE {
            let text = std::str::from_utf8(&self.bytes[start..self.at]).unwrap_or("0");
            facts.overflow |= text.parse::<f64>().is_ok_and(f64::is_infinite);
        }
        Ok(())
    }

    /// A string: escapes checked (lone surrogates noted), raw control characters refused.
    fn string(&mut self, facts: &mut Facts) -> Result<(), ReadError> {
        self.at += 1; // the opening quote
        loop {
            let Some(b) = self.peek() else {
                return Err(self.error());
            };
            match b {
                b'"' => {
                    self.at += 1;
                    return Ok(());
                }
                b'\\' => self.escape(facts)?,
                0x00..=0x1f => return Err(self.error()),
                _ => self.at += 1,
            }
        }
    }

    fn escape(&mut self, facts: &mut Facts) -> Result<(), ReadError> {
        self.at += 1;
        match self.peek() {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                self.at += 1;
                Ok(())
            }
            Some(b'u') => {
                let unit = self.unicode()?;
                if (0xD800..0xDC00).contains(&unit) {
                    let pair = self.bytes[self.at..].starts_with(b"\\u")
                        && hex4(self.bytes.get(self.at + 2..self.at + 6))
                            .is_some_and(|l| (0xDC00..0xE000).contains(&l));
                    if pair {
                        self.at += 1;
                        self.unicode()?;
                    } else {
                        facts.lone_surrogate = true;
                    }
                } else if (0xDC00..0xE000).contains(&unit) {
                    facts.lone_surrogate = true;
                }
                Ok(())
            }
            _ => Err(self.error()),
        }
    }

    /// `uXXXX` (the cursor on the `u`): the code unit.
    fn unicode(&mut self) -> Result<u32, ReadError> {
        let unit = hex4(self.bytes.get(self.at + 1..self.at + 5)).ok_or_else(|| self.error())?;
        self.at += 5;
        Ok(unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &[u8]) -> Doc<'_> {
        read(text).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(text)))
    }

    #[test]
    fn reads_what_the_grammar_allows_and_nothing_else() {
        for ok in [
            &b"{}"[..],
            b" [1, -0.5e+3, \"a\\u00e9\", true, false, null, {\"k\": []}] ",
            b"\"\\ud800\"",
            b"\"\xff\"",
            b"18446744073709551615123",
        ] {
            doc(ok);
        }
        for bad in [
            &b""[..],
            b"  ",
            b"{",
            b"{\"a\" 1}",
            b"[1,]",
            b"01",
            b"1.",
            b"-",
            b"\"\x01\"",
            b"\"\\x\"",
            b"{} {}",
            b"\xff",
            b"[1]]",
            b"NaN",
        ] {
            assert!(read(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn any_depth_reads_without_recursion() {
        let deep = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
        let d = doc(deep.as_bytes());
        assert_eq!(d.facts.depth, 200_000);
        assert_eq!(d.elements(d.root).len(), 1);
        assert!(read(format!("{}{}", "[".repeat(10), "]".repeat(9)).as_bytes()).is_err());
    }

    #[test]
    fn facts_say_what_a_strict_peer_refuses() {
        assert!(doc(b"\"\\udcff\"").facts.lone_surrogate);
        assert!(doc(b"\"\\udc00\\ud800\"").facts.lone_surrogate);
        assert!(!doc(b"\"\\ud83e\\udd80\"").facts.lone_surrogate);
        assert!(doc(b"{\"a\":\"\xff\"}").facts.invalid_utf8);
        assert!(doc(b"[1e999]").facts.overflow);
        assert!(!doc(b"[1e308]").facts.overflow);
        assert_eq!(doc(b"{\"a\":[[1]]}").facts.depth, 3);
        assert_eq!(doc(b"[]").facts.depth, 1);
        assert_eq!(doc(b"7").facts.depth, 0);
    }

    #[test]
    fn members_and_elements_are_found_on_demand() {
        let d = doc(br#"{"id": 1, "x": {"id": 2}, "s": "a\"b", "id": [3, {"y": 4}]}"#);
        assert_eq!(d.members(d.root).len(), 4);
        assert_eq!(d.object(d.root).get_all("id").len(), 2);
        let last = d.get(d.root, "id").map(|v| d.raw(v).to_vec());
        assert_eq!(last, Some(b"[3, {\"y\": 4}]".to_vec()));
        assert!(d.object(d.root).repeats_a_key());
        let spelled = doc(br#"{"id": 1, "\u0069d": 2}"#);
        assert!(spelled.object(spelled.root).repeats_a_key());
        let once = doc(br#"{"id": 1, "x": {"id": 2}}"#);
        assert!(!once.object(once.root).repeats_a_key());
        let x = d.get(d.root, "x").map(|x| d.get(x, "id"));
        assert_eq!(x.flatten().map(|v| d.raw(v)), Some(&b"2"[..]));
        assert!(d.is(d.get(d.root, "s").unwrap(), "a\"b"));
        let escaped = doc(br#"{"\u006dethod": "ping"}"#);
        assert!(escaped.get(escaped.root, "method").is_some());
    }

    #[test]
    fn numbers_are_keyed_by_exact_value() {
        let key = |t: &str| IdKey::number(t.as_bytes());
        assert_eq!(key("100"), key("1e2"));
        assert_eq!(key("100"), key("100.0"));
        assert_eq!(key("100"), key("1.00E+2"));
        assert_eq!(key("0"), key("-0"));
        assert_eq!(key("0"), key("0.0e5"));
        assert_ne!(key("18446744073709551615"), key("18446744073709551616"));
        assert_ne!(key("1"), key("-1"));
        assert_eq!(
            key("340282366920938463463374607431768211457").to_string(),
            "340282366920938463463374607431768211457"
        );
        assert_eq!(key("1e30"), key("10e29"));
        assert_eq!(key("-1.5e-3"), key("-0.0015"));
        for (spelled, shown) in [
            ("1.5", "1.5"),
            ("-0.0015", "-0.0015"),
            ("1.8446744073709552e19", "18446744073709552000"),
            ("1e30", "1e30"),
            ("-1.25e-40", "-1.25e-40"),
            ("1000", "1000"),
        ] {
            assert_eq!(key(spelled).to_string(), shown);
        }
    }

    #[test]
    fn a_number_past_a_double_also_keys_as_the_double_it_rounds_to() {
        let d = doc(b"18446744073709551615");
        let keys = d.id_keys(d.root, Decoder::Escape);
        assert_eq!(keys.len(), 2);
        // What JavaScript's JSON.stringify(JSON.parse(..)) writes, and Python's float repr.
        assert_eq!(keys[1], IdKey::number(b"18446744073709552000"));
        assert_eq!(keys[1], IdKey::number(b"1.8446744073709552e+19"));
        let exact = doc(b"42");
        assert_eq!(exact.id_keys(exact.root, Decoder::Escape).len(), 1);
    }

    #[test]
    fn strings_decode_as_each_decoder_reads_them() {
        let d = doc(b"\"r\xff1\"");
        let replaced = d.id_key(d.root, Decoder::Replace);
        let escaped = d.id_key(d.root, Decoder::Escape);
        assert_eq!(replaced, IdKey::string("r\u{fffd}1"));
        // Python's surrogateescape reads \xff as U+DCFF and json.dumps writes it "\udcff".
        let echoed = doc(br#""r\udcff1""#);
        assert_eq!(escaped, echoed.id_key(echoed.root, Decoder::Escape));
        assert_ne!(escaped, replaced);
        let pair = doc(br#""\ud83e\udd80""#);
        assert_eq!(pair.id_key(pair.root, Decoder::Escape), IdKey::string("🦀"));
        assert_eq!(IdKey::string("a\\b").to_string(), "\"a\\\\b\"");
    }

    #[test]
    fn id_spans_are_found_before_the_damage() {
        let spans =
            |b: &[u8]| -> Vec<Vec<u8>> { id_spans(b).into_iter().map(|r| b[r].to_vec()).collect() };
        assert_eq!(spans(br#"{"a":{"id":9},"id": 7 ,"b":1}"#), [b"7".to_vec()]);
        assert_eq!(
            spans(br#"[{"id":"x"},{"id":[1]},{"id":2"#),
            [b"\"x\"".to_vec(), b"[1]".to_vec()]
        );
        assert_eq!(spans(b"{\"id\":\"r\xff\",\"k\":"), [b"\"r\xff\"".to_vec()]);
        assert!(spans(b"{\"id\"").is_empty());
        assert!(spans(b"{\"id\":1").is_empty());
        assert!(spans(b"{\"x\":1,\"id\":\"open").is_empty());
    }

    #[test]
    fn integers_of_any_spelling() {
        let d = doc(br#"[-32601, 1e3, 1.5, 0.5e1, 99999999999999999999]"#);
        let e = d.elements(d.root);
        assert_eq!(d.integer(e[0]), Some(-32601));
        assert_eq!(d.integer(e[1]), Some(1000));
        assert_eq!(d.integer(e[2]), None);
        assert_eq!(d.integer(e[3]), Some(5));
        assert_eq!(d.integer(e[4]), None);
        assert!(d.is_integer(e[4]));
        assert!(!d.is_integer(e[2]));
    }
}
