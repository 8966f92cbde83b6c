//! Protected servers (AUTH-1..9): what mcpspec needs to test a server behind a bearer token, and
//! to check the authorization the server does.
//!
//! ```text
//! flags (--header, --bearer*, --auth-issuer) --credentials.rs--> Credentials
//!     on the target's Endpoint: every request to it carries them (transport::http::client)
//! a request without a token --discovery.rs--> 401 + challenge.rs (RFC 9110/6750)
//!     --> protected resource metadata (RFC 9728) --> authorization server metadata (RFC 8414)
//! issuer.rs: keys in a directory, JWTs minted (right, expired, wrong audience, …),
//!     issuer/http.rs: `mcpspec auth issuer` serves its metadata and JWKS on loopback
//! ```
//!
//! Redaction (every secret replaced by `‹redacted›` in everything mcpspec writes) is the
//! core's `mcpspec_core::redact`, below every crate that writes.
//!
//! The checks that use this are `catalogue/auth.rs` (`auth/*`). Owns `auth/`. Imports the
//! transport's HTTP client (below it) and the leaves (`text`, `protocol`); `challenge` is a
//! leaf itself, which `cli_values` may import.

pub mod challenge;
pub mod credentials;
pub mod discovery;
pub mod issuer;

pub use credentials::{AuthArgs, Credentials};
