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
    StallOnParseError = "stall-on-parse-error": "After invalid JSON (unanswered) the process stops reading its input; it stays up.",
    InvalidRequestWrongCode = "invalid-request-wrong-code": "A request object without `method` gets -32603 instead of -32600.",
    AcceptAnyJsonrpcVersion = "accept-any-jsonrpc-version": "A request with `\"jsonrpc\": \"1.0\"` is served.",
    ProcessBatches = "process-batches": "A JSON array is processed element by element (2025-06-18+ and modern).",
    NullIdAnswered = "null-id-answered": "A request with `\"id\": null` is served with a result.",
    IdAsNumber = "id-as-number": "Numeric-looking string ids are echoed as numbers.",
    IdAsString = "id-as-string": "Integer ids are echoed as strings.",
    ReplyToNotifications = "reply-to-notifications": "Notifications (known and unknown) get an error reply.",
    ResultToInvalidMessage = "result-to-invalid-message": "An id-less message with malformed `params` (an invalid Request, not a notification) is answered with a result and `id: null`.",
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
    VersionPinnedOnFirstUse = "version-pinned-on-first-use": "META-3: once a connection has served a 2026-07-28 request, a request naming any other version is served as 2026-07-28.",
    RequireDiscoverFirst = "require-discover-first": "Requests before a `server/discover` on the connection are refused (-32600).",
    ServeRemovedMethods = "serve-removed-methods": "`ping`, `logging/setLevel`, `resources/subscribe`, `resources/unsubscribe` are served in the modern era.",
    EnvelopeLessServedAsModern = "envelope-less-served-as-modern": "POL-19: on a dual-era stdio connection, a request whose `_meta` does not name the protocol version, sent before any `initialize`, is served as modern (a stamped result) instead of -32602.",
    EnvelopeLessReadAsLegacy = "envelope-less-read-as-legacy": "POL-19: on a dual-era stdio connection, a request whose `_meta` does not name the protocol version, sent before any `initialize`, is read as legacy and gets -32600 \"not initialized\" instead of -32602.",
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
    // --- streamable HTTP (`--http`): one requirement each ----------------------------------------
    HttpPost405 = "http-post-405": "HTTP-1: POST to the endpoint gets 405 (only GET is allowed).",
    HttpNoOriginCheck = "http-no-origin-check": "HTTP-2: a foreign `Origin` is served instead of 403.",
    HttpNoHostCheck = "http-no-host-check": "HTTP-2: a foreign `Host` is served (no DNS-rebinding protection) instead of 421.",
    HttpNoBodyLimit = "http-no-body-limit": "HTTP-2: request bodies of any size are read instead of 413 beyond the limit.",
    HttpNotification200Body = "http-notification-200-body": "HTTP-3: a modern notification POST gets 200 with a `{}` body instead of 202 and no body.",
    HttpJsonWrongContentType = "http-json-wrong-content-type": "HTTP-4: JSON replies are sent as `Content-Type: text/plain`.",
    HttpVersionHeaderMismatchAccepted = "http-version-header-mismatch-accepted": "HTTP-5: an `MCP-Protocol-Version` header that disagrees with `_meta` is served.",
    HttpMissingVersionHeaderAccepted = "http-missing-version-header-accepted": "HTTP-6: a modern request without `MCP-Protocol-Version` is served.",
    HttpUnknownMethod200 = "http-unknown-method-200": "HTTP-7: -32601 replies use status 200 instead of 404.",
    HttpHeaderMismatchAccepted = "http-header-mismatch-accepted": "HTTP-8: `Mcp-Method` and `Mcp-Name` are not checked (missing, mismatched, malformed or duplicated ones are served).",
    HttpHeaderErrorWrongCode = "http-header-error-wrong-code": "HTTP-8, POL-10: header errors get 400 with -32602 instead of -32020.",
    HttpMethodHeaderCaseInsensitive = "http-method-header-case-insensitive": "HTTP-9: `Mcp-Method` is compared case-insensitively (`TOOLS/LIST` is served).",
    HttpNoBase64Decoding = "http-no-base64-decoding": "HTTP-10: `=?base64?…?=` header values are compared undecoded (a correct encoded `Mcp-Name` gets -32020).",
    HttpParamHeaderNotChecked = "http-param-header-not-checked": "HTTP-11: `Mcp-Param-*` headers of `x-mcp-header` arguments are not checked (missing or mismatched ones are served).",
    HttpSseServerRequest = "http-sse-server-request": "HTTP-12: every modern request is answered on an SSE stream that first carries a `ping` request.",
    HttpSseNoTerminate = "http-sse-no-terminate": "HTTP-13: replies are SSE streams that stay open after the final response, without `X-Accel-Buffering: no`.",
    HttpCloseNotCancellation = "http-close-not-cancellation": "HTTP-14: a request whose response stream the client closed runs on to completion.",
    HttpMintsSessionIdModern = "http-mints-session-id-modern": "HTTP-15: modern responses carry a fresh `Mcp-Session-Id` header.",
    HttpModernGet200 = "http-modern-get-200": "HTTP-15: with `--eras modern`, GET opens an (empty) SSE stream instead of 405.",
    HttpVersionErrorStatus200 = "http-version-error-status-200": "HTTP-16: -32022, -32021 and -32602 replies use status 200 instead of 400.",
    HttpLegacyVersionHeaderIgnored = "http-legacy-version-header-ignored": "LEG-8: an invalid `MCP-Protocol-Version` on a legacy session is served instead of 400.",
    HttpLegacySessionIdInvalidChars = "http-legacy-session-id-invalid-chars": "LEG-9: the minted `Mcp-Session-Id` contains a space (outside 0x21-0x7E).",
    HttpLegacyTerminatedSession200 = "http-legacy-terminated-session-200": "LEG-9: DELETE answers 200 but the session lives on (requests naming it are served, not 404).",
    HttpLegacyGet200Json = "http-legacy-get-200-json": "LEG-10: GET on a legacy session gets 200 `application/json` instead of an SSE stream or 405.",
    HttpLegacyNotification200 = "http-legacy-notification-200": "LEG-11: POSTed notifications and responses get 200 with a `{}` body instead of 202.",
    HttpLegacyEventIdReused = "http-legacy-event-id-reused": "LEG-12: every SSE event of a legacy session has the id `1`.",
    // --- authorization mode (`--http --auth-issuer URL`): one requirement each ---------------
    AuthNoChallenge = "auth-no-challenge": "AUTH-1: a request without a token gets 401 with no `WWW-Authenticate` header.",
    AuthChallengeNoResourceMetadata = "auth-challenge-no-resource-metadata": "AUTH-1: challenges carry no `resource_metadata` (the server serves 2025-06-18, whose clients need it).",
    AuthChallengeNoScope = "auth-challenge-no-scope": "AUTH-1: the 401 challenge names no `scope`.",
    AuthMetadataMissing = "auth-metadata-missing": "AUTH-2: the protected resource metadata is served nowhere (404), though the challenge names its URL.",
    AuthResourceMismatch = "auth-resource-mismatch": "AUTH-3: the metadata's `resource` has a trailing slash the server's URL does not have.",
    AuthBadAuthorizationServer = "auth-bad-authorization-server": "AUTH-2: the metadata's `authorization_servers` names a relative path, not an issuer URL.",
    AuthSignatureUnchecked = "auth-signature-unchecked": "AUTH-4: token signatures are not verified (a garbage JWT or one signed by an unknown key is served).",
    AuthExpiredAccepted = "auth-expired-accepted": "AUTH-4: expired tokens are served.",
    AuthIssuerUnchecked = "auth-issuer-unchecked": "AUTH-4: the token's `iss` is not checked (a token from another issuer is served).",
    AuthSchemeOptional = "auth-scheme-optional": "AUTH-4: an `Authorization` header without the `Bearer` scheme (the bare token) is served, not refused.",
    AuthWrongAudienceAccepted = "auth-wrong-audience-accepted": "AUTH-5: the token's audience is not checked (a token for another resource is served).",
    AuthQueryTokenAccepted = "auth-query-token-accepted": "AUTH-6: an `access_token` in the query string is accepted.",
    AuthInsufficientScope401 = "auth-insufficient-scope-401": "AUTH-7: a token without the needed scope gets 401 `invalid_token` instead of 403 `insufficient_scope`.",
    AuthOfflineAccess = "auth-offline-access": "AUTH-8: `offline_access` is in the challenge's `scope` and the metadata's `scopes_supported`.",
    AuthRejectsValidToken = "auth-rejects-valid-token": "AUTH-9: the audience is compared with the wrong URL, so every token, a right one too, gets 401.",
    // --- 2026-07-28: subscriptions/listen -----------------------------------------------------
    ListenNoAck = "listen-no-ack": "SUB-1: `subscriptions/listen` sends no `notifications/subscriptions/acknowledged`.",
    ListenAckLate = "listen-ack-late": "SUB-1: the acknowledgement comes only after the subscription's first notification.",
    ListenWrongSubscriptionId = "listen-wrong-subscription-id": "SUB-2: listen-stream notifications after the acknowledgement carry a server-made `subscriptionId` (`sub-N`), not the listen id.",
    ListenIdTypeChanged = "listen-id-type-changed": "SUB-2: listen-stream notifications carry the listen id with its JSON type flipped (7 <-> \"7\"; a non-numeric string becomes 0).",
    ListenUnrequestedTypes = "listen-unrequested-types": "SUB-3: listen streams get every list_changed type and `resources/updated` for any URI, requested or not.",
    ListenLogOnStream = "listen-log-on-stream": "SUB-4: a `notifications/message` goes on the listen stream right after the acknowledgement.",
    ListenNoListChanged = "listen-no-list-changed": "SUB-5: list-changed triggers reach no listen stream, although `listChanged` is advertised and acknowledged.",
    ListenNoTeardown = "listen-no-teardown": "SUB-6: `mcpspec_end_subscriptions` stops the streams without a completion result (or `notifications/cancelled`).",
    ListenAfterCancel = "listen-after-cancel": "SUB-7: a listen stream the client cancelled keeps receiving notifications.",
    ListenCancelEndsAll = "listen-cancel-ends-all": "SUB-7: a client cancelling one listen stream (closing it, on HTTP) silently ends every other one too.",
    ListenCancelledByServerForRequest = "listen-cancelled-by-server-for-request": "SUB-9: every `tools/call` gets a server `notifications/cancelled` for its own id before its reply.",
    // --- 2026-07-28: per-request logging and progress -----------------------------------------
    LogWithoutLevel = "log-without-level": "LOG-1: requests without `io.modelcontextprotocol/logLevel` get `notifications/message` too.",
    LogBelowLevel = "log-below-level": "LOG-2: log messages below the request's level are sent.",
    LogAfterReply = "log-after-reply": "LOG-2: with a log level, one more `notifications/message` follows the reply.",
    NoLoggingCapability = "no-logging-capability": "LOG-3: discover does not advertise `logging`, although requests with a level get log messages.",
    InvalidLogLevelAccepted = "invalid-log-level-accepted": "META-6: an unrecognized `io.modelcontextprotocol/logLevel` is served (as no level) instead of -32602.",
    ProgressWithoutToken = "progress-without-token": "PROG-1: `tools/call` without a `progressToken` gets `notifications/progress` (with a made-up token).",
    ProgressNotIncreasing = "progress-not-increasing": "PROG-1: every progress notification says `progress: 1`.",
    ProgressAfterReply = "progress-after-reply": "PROG-1: one more progress notification follows the `tools/call` reply.",
    ReplyAfterCancel = "reply-after-cancel": "STDIO-4: a request cancelled while in flight is still answered.",
    // --- 2026-07-28: caching, lists, resources, prompts ---------------------------------------
    CacheHintsMissingOnList = "cache-hints-missing-on-list": "CACHE-1: list results (tools, prompts, resources, templates) lack `ttlMs` and `cacheScope`.",
    CacheHintsMissingOnRead = "cache-hints-missing-on-read": "CACHE-1: `resources/read` results lack `ttlMs` and `cacheScope`.",
    CacheScopeVariesByPage = "cache-scope-varies-by-page": "CACHE-2: pages after the first of a list say `cacheScope: \"private\"` (the first says public).",
    CacheHintsOnInputRequired = "cache-hints-on-input-required": "CACHE-1: input_required results carry `ttlMs` and `cacheScope`.",
    ListVariesPerConnection = "list-varies-per-connection": "LIST-1: `tools/list` descriptions name a random per-connection nonce.",
    ListOrderRandom = "list-order-random": "LIST-2: `tools/list` order is reversed on every other call on a connection.",
    ResourceNotFound32002 = "resource-not-found-32002": "FEAT-1: a missing resource gets the legacy -32002 in the modern era.",
    ResourceNotFoundEmptyContents = "resource-not-found-empty-contents": "FEAT-1: a missing resource gets a result with empty `contents`.",
    InvalidCursorAccepted = "invalid-cursor-accepted": "FEAT-2: an unknown list cursor is served as the first page instead of -32602.",
    UnknownPromptResult = "unknown-prompt-result": "FEAT-2: `prompts/get` of an unknown prompt gives a result with no messages instead of -32602.",
    PromptMissingArgumentAccepted = "prompt-missing-argument-accepted": "FEAT-2: `prompts/get` without a required argument is rendered instead of -32602.",
    UndeclaredPrompts = "undeclared-prompts": "DISC-6: discover does not advertise `prompts`, although prompts are served.",
    // --- 2026-07-28: input-required results (MRTR) and client capabilities --------------------
    InputRequiredOnList = "input-required-on-list": "MRTR-1: `tools/list` answers with an InputRequiredResult.",
    InputRequiredNoRequests = "input-required-no-requests": "MRTR-2: InputRequiredResults carry neither `inputRequests` nor `requestState`.",
    InputRequestWrongMethod = "input-request-wrong-method": "MRTR-2: the elicitation input request says `method: \"elicitation/ask\"` (not an Elicit, CreateMessage or ListRoots request).",
    InputRequestsUndeclaredCapability = "input-requests-undeclared-capability": "MRTR-3: `mcpspec_confirm` asks for elicitation although the request did not declare it (instead of -32021).",
    RequestStateNotVerified = "request-state-not-verified": "MRTR-4: a tampered `requestState` is accepted.",
    MissingInputResponsesError = "missing-input-responses-error": "MRTR-5: a retry missing input responses gets -32602 instead of a new InputRequiredResult.",
    MissingCapabilityWrongShape = "missing-capability-wrong-shape": "META-4: the -32021 `data.requiredCapabilities` is an array of names, not a ClientCapabilities object.",
    MissingCapabilityWrongCode = "missing-capability-wrong-code": "META-4: a request needing an undeclared client capability gets -32602 instead of -32021.",
    CapabilityFromPreviousRequest = "capability-from-previous-request": "META-3: client capabilities declared on an earlier request are used for a later request that does not declare them.",
    // --- 2026-07-28: several instances of one deployment (SCALE-1..3, `--replicas N`) -------
    InstanceLocalCursor = "instance-local-cursor": "SCALE-1: list cursors name the instance that issued them and another instance refuses them (-32602), as a server keeping pagination state in memory would.",
    InstanceLocalRequestState = "instance-local-request-state": "SCALE-1: `requestState` is sealed with a key drawn at random when the instance starts, so another instance rejects it.",
    InstanceDrift = "instance-drift": "SCALE-2: each instance advertises its own `experimental` capability in discover and its own `ttlMs` on discover and list results.",
    // --- Message shape against the official schema (SCHEMA-1..3) ---------------------------
    ToolWithoutInputSchema = "tool-without-input-schema": "SCHEMA-1, SCHEMA-2: the `echo` tool in `tools/list` has no `inputSchema`.",
    InvalidInputSchema = "invalid-input-schema": "SCHEMA-2: the `add` tool's `inputSchema` says `\"type\": \"numbr\"` for `a` (not valid under the 2020-12 meta-schema).",
    ContentUnknownType = "content-unknown-type": "SCHEMA-1: `tools/call` results carry a content block of `\"type\": \"txt\"`.",
    CapabilityWrongType = "capability-wrong-type": "SCHEMA-1: `capabilities.tools` is an array in the discover and initialize results.",
    ServerInfoNoVersion = "server-info-no-version": "SCHEMA-1: serverInfo (in `_meta` of modern results, in the InitializeResult) has no `version`.",
    ErrorWithoutMessage = "error-without-message": "SCHEMA-1: error objects carry `code` but no `message`.",
    StructuredOutputMismatch = "structured-output-mismatch": "SCHEMA-3: `mcpspec_probe_log` returns `structuredContent` whose `entries` is an object, not the array its outputSchema declares.",
    // --- The feature surface on its success paths (FEAT-3..8, POL-31) ------------------------
    ToolResultIsErrorString = "tool-result-is-error-string": "FEAT-3: successful `tools/call` results carry `\"isError\": \"false\"` (a string, not a boolean).",
    ToolImageNotBase64 = "tool-image-not-base64": "FEAT-3: the `showcase` tool's image block has `data` that is not base64.",
    ToolStructuredContentMissing = "tool-structured-content-missing": "SCHEMA-3: the `showcase` tool declares `outputSchema` but returns no `structuredContent`.",
    ResourceListedWithoutName = "resource-listed-without-name": "FEAT-4: `resources/list` lists the changelog without a `name`.",
    ResourceListedRelativeUri = "resource-listed-relative-uri": "FEAT-4: `resources/list` lists the license as `license`, not an absolute URI.",
    ListedResourceUnreadable = "listed-resource-unreadable": "FEAT-4: the license is listed, but reading it gives a not-found error.",
    ReadContentsWrongUri = "read-contents-wrong-uri": "FEAT-4: reads of the static resources return contents whose `uri` is another resource's.",
    ReadBlobNotBase64 = "read-blob-not-base64": "FEAT-4: reading the logo returns a `blob` that is not base64.",
    ReadMimeTypeChanged = "read-mime-type-changed": "FEAT-4: read contents carry the `mimeType` `application/octet-stream`, not the one the listing gives (SHOULD agree).",
    TemplateInvalidUriTemplate = "template-invalid-uri-template": "FEAT-5: the notes template's `uriTemplate` is `mcpspec://reference/notes/{topic` (an unclosed expression).",
    TemplateWithoutName = "template-without-name": "FEAT-5: the notes template is listed without a `name`.",
    TemplateReadUnexpandedUri = "template-read-unexpanded-uri": "FEAT-4, FEAT-5: reading an expanded note returns contents whose `uri` is the template, not the URI read.",
    PromptMessageBadRole = "prompt-message-bad-role": "FEAT-6: `prompts/get` messages have the role `system`.",
    PromptMessageContentArray = "prompt-message-content-array": "FEAT-6: `prompts/get` messages carry their content block in an array.",
    ListedPromptFails = "listed-prompt-fails": "FEAT-6: `prompts/get` of the listed `summarize`, with its required argument, gets -32603.",
    CompletionTotalBelowCount = "completion-total-below-count": "FEAT-7: `completion/complete` results say `total: 0` whatever values they carry.",
    CompletionValuesNotStrings = "completion-values-not-strings": "FEAT-7: `completion/complete` values are numbers, not strings.",
    TemplateCompletionInternalError = "template-completion-internal-error": "FEAT-7: `completion/complete` for a template variable (`ref/resource`) gets -32603.",
    ListCursorRepeats = "list-cursor-repeats": "FEAT-8: the last page of every list carries a `nextCursor` that asks for that page again.",
    ListPagesOverlap = "list-pages-overlap": "FEAT-8: each page after the first of a paged list starts one item early (the previous page's last item again).",
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
