//! The reference client's fault switches: each makes it break one client requirement on purpose,
//! so that every `mcpspec client` check is shown to fail (`tests/testsuite/client_mutation.rs`). One line
//! per fault: the enum, the command-line name (`--fault NAME`) and what it breaks.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

macro_rules! faults {
    ($( $variant:ident = $name:literal : $doc:literal, )*) => {
        /// One deliberate misbehaviour of the reference client.
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
    // --- negotiation (CLI-2, CLI-3) ---------------------------------------------------------
    InitializeFirst = "initialize-first": "CLI-2: never sends `server/discover`; always the legacy handshake.",
    NeverFallBack = "never-fall-back": "CLI-2: when `server/discover` fails, gives up instead of falling back to `initialize`.",
    IgnoreSupportedList = "ignore-supported-list": "CLI-2: on -32022 listing a version it supports, falls back to `initialize` instead of retrying.",
    LoopOnVersionError = "loop-on-version-error": "CLI-3: retries forever (up to 50 times) on -32022.",
    // --- the envelope (CLI-1, CLI-9) --------------------------------------------------------
    DropMetaAfterFirst = "drop-meta-after-first": "CLI-1: only the first request carries `_meta`.",
    VersionHeaderMismatch = "version-header-mismatch": "CLI-1: `MCP-Protocol-Version` says 2025-11-25 on modern POSTs.",
    NoMethodHeader = "no-method-header": "CLI-1: no `Mcp-Method` (or `Mcp-Name`) header on modern POSTs.",
    PingAfterDiscover = "ping-after-discover": "CLI-9: sends `ping` after a successful `server/discover`.",
    // --- the legacy lifecycle (CLI-4) -------------------------------------------------------
    RequestBeforeInitialize = "request-before-initialize": "CLI-4: sends `tools/list` before `initialize`.",
    SkipInitialized = "skip-initialized": "CLI-4: never sends `notifications/initialized`.",
    RequestBeforeInitialized = "request-before-initialized": "CLI-4: sends `tools/list` between the `initialize` result and `notifications/initialized`.",
    AcceptUnsupportedVersion = "accept-unsupported-version": "CLI-4: goes on with a server whose `protocolVersion` it does not support.",
    // --- JSON-RPC hygiene (CLI-5) -----------------------------------------------------------
    Jsonrpc1 = "jsonrpc-1": "CLI-5: requests say `\"jsonrpc\": \"1.0\"`.",
    ReuseIds = "reuse-ids": "CLI-5: every request has the id 1.",
    NotificationWithId = "notification-with-id": "CLI-5: `notifications/initialized` carries an id.",
    // --- server->client requests (CLI-6) ----------------------------------------------------
    IgnoreServerRequests = "ignore-server-requests": "CLI-6: server->client requests get no reply.",
    PingError = "ping-error": "CLI-6: a server `ping` gets error -32603.",
    ErrorOnDeclared = "error-on-declared": "CLI-6: `roots/list` and `sampling/createMessage` get -32603 although declared.",
    ResultForUndeclared = "result-for-undeclared": "CLI-6: `elicitation/create` gets a result although the capability was not declared.",
    UnknownMethodResult = "unknown-method-result": "CLI-6: a server request of an unknown method gets an empty result.",
    AnswerWithWrongId = "answer-with-wrong-id": "CLI-6: replies to server requests carry a different id.",
    // --- MRTR (CLI-7) -----------------------------------------------------------------------
    MangleRequestState = "mangle-request-state": "CLI-7: `requestState` is parsed as JSON and written again before it is echoed.",
    ReuseIdOnRetry = "reuse-id-on-retry": "CLI-7: the retry of an input_required request reuses its id.",
    InventRequestState = "invent-request-state": "CLI-7: a retry carries a `requestState` although none was given.",
    DropInputResponses = "drop-input-responses": "CLI-7: retries carry no `inputResponses`.",
    // --- HTTP sessions (CLI-8) --------------------------------------------------------------
    IgnoreSessionId = "ignore-session-id": "CLI-8: requests after `initialize` carry no `Mcp-Session-Id`.",
    NoDelete = "no-delete": "CLI-8: never sends `DELETE` for its session.",
    NoReinitializeOn404 = "no-reinitialize-on-404": "CLI-8: HTTP 404 for its session ends the client (no new session).",
    // --- robustness (CLI-10) ----------------------------------------------------------------
    CrashOnUnexpected = "crash-on-unexpected": "CLI-10: an unknown notification, a reply to an id it never sent or a line that is not JSON aborts the process (SIGABRT).",
    // --- authorization (CLI-11..19, CLI-10) -------------------------------------------------
    PrmRootOnly = "prm-root-only": "CLI-11: ignores the challenge's `resource_metadata` and the path-inserted well-known URL; fetches PRM only at the root `/.well-known/oauth-protected-resource`.",
    AsMetadataOidcFirst = "as-metadata-oidc-first": "CLI-11: tries the AS metadata URLs in the wrong order: OIDC path-appended, OIDC path-inserted, then OAuth path-inserted.",
    AcceptAnyPrmResource = "accept-any-prm-resource": "CLI-11: uses a PRM whose `resource` is not the server it asked about.",
    AcceptAnyIssuer = "accept-any-issuer": "CLI-11: uses AS metadata whose `issuer` differs from the issuer it was fetched for.",
    NoPkce = "no-pkce": "CLI-12: no `code_challenge`/`code_challenge_method` on the authorization request, no `code_verifier` on the token request.",
    ProceedWithoutS256 = "proceed-without-s256": "CLI-12: goes on (with S256 anyway) when the AS metadata has no `code_challenge_methods_supported`.",
    NoResource = "no-resource": "CLI-13: no `resource` on the authorization request nor on the token requests.",
    RefreshWithoutResource = "refresh-without-resource": "CLI-13: the refresh grant has no `resource` (the authorization request and the code grant keep it).",
    IgnoreChallengeScope = "ignore-challenge-scope": "CLI-14: asks for no scope at all (omits `scope`).",
    NoStepUp = "no-step-up": "CLI-14: on 403 `insufficient_scope` gives up (exit 1) instead of re-authorizing.",
    NoRegistration = "no-registration": "CLI-15: authorizes with a made-up client_id (`mcpspec-unregistered`) without registering.",
    IgnorePreRegistered = "ignore-pre-registered": "CLI-15: ignores the context's client_id/client_secret and registers instead (at `{issuer}/register`, guessed, when the AS has no registration_endpoint).",
    IgnoreCimd = "ignore-cimd": "CLI-15: uses Dynamic Client Registration although the AS supports client ID metadata documents and the context names `client_metadata_url`.",
    DcrNoApplicationType = "dcr-no-application-type": "CLI-15: the Dynamic Client Registration request has no `application_type`.",
    NoState = "no-state": "CLI-16: no `state` on the authorization request (and none checked).",
    IgnoreState = "ignore-state": "CLI-16: redeems the code whatever `state` came back.",
    IgnoreIss = "ignore-iss": "CLI-17: redeems the code whatever `iss` came back, or none.",
    TokenInQuery = "token-in-query": "CLI-18: sends the access token as `?access_token=` on the MCP URL instead of the `Authorization` header.",
    TokenToAuthServer = "token-to-auth-server": "CLI-18: also sends `Authorization: Bearer <access token>` on its requests to the authorization server once it has a token.",
    AlwaysOfflineAccess = "always-offline-access": "CLI-19: adds `offline_access` to the scope although the AS does not list it.",
    RefreshElsewhere = "refresh-elsewhere": "CLI-19: sends the refresh grant to `/token` on the MCP server's origin instead of the AS's token_endpoint (then re-authorizes).",
    UnboundedDiscovery = "unbounded-discovery": "CLI-10: discovery follows redirects without limit, reads bodies up to 64 MiB and starts again without end when a metadata document is unusable.",
    RetryForever = "retry-forever": "CLI-10: on a 401 after it has a token, re-authorizes without end.",
    RegisterForever = "register-forever": "CLI-10: registers (Dynamic Client Registration) 10,000 times before it authorizes (fewer when the server answers 429).",
    HugeBody = "huge-body": "CLI-10: its Dynamic Client Registration request body is 30 MiB (a padded client_name).",
}

/// The set of active faults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Faults(BTreeSet<Fault>);

impl Faults {
    pub fn has(&self, fault: Fault) -> bool {
        self.0.contains(&fault)
    }

    pub fn with(mut self, fault: Fault) -> Self {
        self.0.insert(fault);
        self
    }
}

impl FromIterator<Fault> for Faults {
    fn from_iter<I: IntoIterator<Item = Fault>>(iter: I) -> Self {
        Self(iter.into_iter().collect())
    }
}

/// An unknown fault name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown fault `{0}` (see `mcpspec-reference-client --list-faults`)")]
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
