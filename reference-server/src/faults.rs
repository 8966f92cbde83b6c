//! Fault switches: each makes the server violate one requirement on purpose, so that the
//! harness's own tests can prove every check catches the violation it names.
//!
//! A fault is named on the command line (`--fault NAME`, repeatable). Names are stable: the
//! harness's mutation test refers to them.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

macro_rules! faults {
    ($( $variant:ident = $name:literal : $doc:literal, )*) => {
        /// One deliberate misbehaviour. See [`Fault::description`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Fault {
            $( #[doc = $doc] $variant, )*
        }

        impl Fault {
            /// Every fault, in declaration order.
            pub const ALL: &'static [Fault] = &[ $( Fault::$variant, )* ];

            /// The stable command-line name.
            pub fn name(self) -> &'static str {
                match self { $( Fault::$variant => $name, )* }
            }

            /// What the fault breaks, one line.
            pub fn description(self) -> &'static str {
                match self { $( Fault::$variant => $doc, )* }
            }
        }
    };
}

faults! {
    // --- JSON-RPC framing and error codes -------------------------------------------------
    ParseErrorSilent = "parse-error-silent": "Invalid JSON gets no reply at all.",
    ParseErrorWrongCode = "parse-error-wrong-code": "Invalid JSON gets -32600 instead of -32700.",
    ParseErrorIdZero = "parse-error-id-zero": "The -32700 reply carries `\"id\": 0` instead of null.",
    ExitOnParseError = "exit-on-parse-error": "The process exits after invalid JSON.",
    InvalidRequestWrongCode = "invalid-request-wrong-code": "A request object without `method` gets -32603 instead of -32600.",
    AcceptAnyJsonrpcVersion = "accept-any-jsonrpc-version": "A request with `\"jsonrpc\": \"1.0\"` is served.",
    ProcessBatches = "process-batches": "A JSON array is processed element by element (2025-06-18+ and modern).",
    NullIdAnswered = "null-id-answered": "A request with `\"id\": null` is served with a result.",
    IdAsNumber = "id-as-number": "Numeric-looking string ids are echoed as numbers.",
    IdAsString = "id-as-string": "Integer ids are echoed as strings.",
    ReplyToNotifications = "reply-to-notifications": "Notifications (known and unknown) get an error reply.",
    UnknownMethodWrongCode = "unknown-method-wrong-code": "Unknown methods get -32600 instead of -32601.",
    UnknownMethodCode32000 = "unknown-method-code-32000": "Unknown methods get -32000 (implementation-defined range).",
    UnknownMethodCode32050 = "unknown-method-code-32050": "Unknown methods get -32050 (an undefined reserved code).",
    InvalidParamsInternalError = "invalid-params-internal-error": "Bad params (e.g. `tools/call` without `name`) get -32603 instead of -32602.",
    WrongJsonrpcVersionOut = "wrong-jsonrpc-version-out": "Replies carry `\"jsonrpc\": \"2\"`.",
    ResultAndError = "result-and-error": "Error replies also carry a `result` member.",
    StaleReplyId = "stale-reply-id": "Each reply carries the id of the previous request (first one is right).",
    // --- stdio ------------------------------------------------------------------------------
    PrettyPrint = "pretty-print": "Replies are pretty-printed across several lines.",
    LogToStdout = "log-to-stdout": "A plain-text log line is written to stdout at start-up.",
    ModernSendsPing = "modern-sends-ping": "A modern `tools/list` makes the server send a `ping` request first.",
    IgnoreEof = "ignore-eof": "The process keeps running after stdin closes.",
    // --- modern era: discover, envelope, versions --------------------------------------------
    NoDiscover = "no-discover": "`server/discover` is an unknown method (-32601).",
    DiscoverBadShape = "discover-bad-shape": "The discover result lacks `supportedVersions` and `capabilities`.",
    DiscoverNoCacheHints = "discover-no-cache-hints": "The discover result lacks `ttlMs` and `cacheScope`.",
    ServerInfoTopLevel = "server-info-top-level": "serverInfo is a top-level result member, not in `result._meta`.",
    DiscoverIgnoresEnvelope = "discover-ignores-envelope": "`server/discover` without `_meta` is served.",
    NoResultType = "no-result-type": "Results lack `resultType`.",
    EnvelopeOptional = "envelope-optional": "Requests missing `_meta`, protocolVersion or clientCapabilities are served.",
    RequireClientInfo = "require-client-info": "Requests without `clientInfo` get -32602.",
    VersionErrorWrongCode = "version-error-wrong-code": "Unsupported versions get -32602 instead of -32022.",
    VersionErrorDraftCode = "version-error-draft-code": "Unsupported versions get the pre-release draft code -32004.",
    VersionErrorBadData = "version-error-bad-data": "The -32022 data omits `requested` and lists a version discover does not.",
    AcceptUnknownVersion = "accept-unknown-version": "Requests with an unknown protocol version are served.",
    RequireDiscoverFirst = "require-discover-first": "Requests before a `server/discover` on the connection are refused (-32600).",
    ServeRemovedMethods = "serve-removed-methods": "`ping`, `logging/setLevel`, `resources/subscribe`, `resources/unsubscribe` are served in the modern era.",
    ModernInitializeInternalError = "modern-initialize-internal-error": "`initialize` carrying the modern `_meta` gets -32603.",
    // --- tools --------------------------------------------------------------------------------
    UnknownToolAsResult = "unknown-tool-as-result": "An unknown tool gives an `isError: true` result instead of -32602.",
    ToolErrorAsProtocolError = "tool-error-as-protocol-error": "A failing tool gives a -32602 error instead of an `isError: true` result.",
    UndeclaredTools = "undeclared-tools": "The discover result does not advertise `tools` although tools are served.",
    // --- legacy era: handshake, lifecycle, batches -------------------------------------------
    InitializeBadShape = "initialize-bad-shape": "The InitializeResult lacks `capabilities` and `serverInfo`.",
    InitializeWrongVersion = "initialize-wrong-version": "A supported requested version is answered with a different supported one.",
    InitializeErrorOnUnknownVersion = "initialize-error-on-unknown-version": "An unknown version gets a -32602 error with `data.supported` instead of a counter-offer.",
    InitializeInternalErrorOnUnknownVersion = "initialize-internal-error-on-unknown-version": "An unknown version gets -32603 instead of a counter-offer.",
    ReplyToInitialized = "reply-to-initialized": "`notifications/initialized` gets a reply (`id` null, empty result).",
    RootsBeforeInitialized = "roots-before-initialized": "A `roots/list` request goes out right after the handshake, before `notifications/initialized`.",
    LegacyWrongCapabilities = "legacy-wrong-capabilities": "`resources/subscribe` is served although the announced capabilities lack `resources.subscribe`.",
    NoPing = "no-ping": "Legacy `ping` gets -32601.",
    AnswerInvalidCancellation = "answer-invalid-cancellation": "`notifications/cancelled` for an unknown request gets an error reply.",
    ReuseServerRequestIds = "reuse-server-request-ids": "After `notifications/initialized`, two `ping` requests go out with the same id.",
    RejectBatches20250326 = "reject-batches-2025-03-26": "A batch on a 2025-03-26 session gets a single -32600 instead of being processed.",
    SilentBeforeInitialize = "silent-before-initialize": "Legacy requests before `initialize` (other than ping) get no reply.",
    ModernInitializeNoVersions = "modern-initialize-no-versions": "With `--eras modern`, `initialize` gets -32601 without `data.supported`.",
    // --- inline-initialize deadlock detection ------------------------------------------------
    DeadlockOnInitialize = "deadlock-on-initialize": "During `initialize` a middleware awaits a server->client `ping` while the reader is parked.",
    SilentDeadlockOnInitialize = "silent-deadlock-on-initialize": "During `initialize` a middleware awaits a `ping` that is queued but never written (a stall).",
    SlowStart = "slow-start": "Nothing is read for 10 s after start-up.",
    CrashOnInitialize = "crash-on-initialize": "`initialize` makes the process exit non-zero (`serve_stream` returns an error).",
    // --- middleware chain and the probe profile ----------------------------------------------
    InitializeNotInline = "initialize-not-inline": "`initialize` is handled concurrently, not inline, so an awaiting middleware does not deadlock.",
    ProbeRefuseIgnored = "probe-refuse-ignored": "A probe `refuse` directive is ignored: the request is served.",
    ProbeRefuseCloses = "probe-refuse-closes": "After a probe refusal the server stops serving (the connection ends).",
    ProbeRewriteIgnored = "probe-rewrite-ignored": "A probe `rewrite` does not reach lookup, validation or the handler.",
    ProbeAnswerStamped = "probe-answer-stamped": "A probe `answer` gets `resultType` and serverInfo stamped onto it.",
    ProbeNotificationAnswered = "probe-notification-answered": "A probe `answer` on a notification is sent as a reply (`id` null).",
    ProbeLogBlind = "probe-log-blind": "The probe log omits notifications and records failed requests as `ok`.",
    VetoCommitsInitialize = "veto-commits-initialize": "A vetoed `initialize` still commits the session.",
    // --- planted bugs for the fuzzer (`mcpspec fuzz`, `fuzz/`) ------------------------------
    PanicOnDunderArgument = "panic-on-dunder-argument": "`tools/call` whose `arguments` has a `__`-prefixed key holding an array panics (the process dies).",
    ReplyTwice = "reply-twice": "`tools/call` requests are answered twice.",
    StdoutDebugOnCursor = "stdout-debug-on-cursor": "A request with a `cursor` param writes a plain-text debug line to stdout.",
    HangOnNegativeId = "hang-on-negative-id": "A request with a negative integer id makes the server stop reading its input.",
}

/// The set of active faults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Faults(BTreeSet<Fault>);

impl Faults {
    pub fn none() -> Self {
        Self::default()
    }

    pub fn with(mut self, fault: Fault) -> Self {
        self.0.insert(fault);
        self
    }

    pub fn has(&self, fault: Fault) -> bool {
        self.0.contains(&fault)
    }

    pub fn iter(&self) -> impl Iterator<Item = Fault> + '_ {
        self.0.iter().copied()
    }
}

impl FromIterator<Fault> for Faults {
    fn from_iter<I: IntoIterator<Item = Fault>>(iter: I) -> Self {
        Self(iter.into_iter().collect())
    }
}

/// An unknown fault name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown fault `{0}` (see `mcp-reference-server --list-faults`)")]
pub struct UnknownFault(pub String);

impl FromStr for Fault {
    type Err = UnknownFault;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Fault::ALL
            .iter()
            .copied()
            .find(|f| f.name() == s)
            .ok_or_else(|| UnknownFault(s.to_owned()))
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
