//! What ties a peer to the process pool without the driver importing it: the place a pooled
//! process holds among the `--jobs` processes alive at once, and where a leased peer hands its
//! connection back when it is dropped. The pool (`crate::pool`) fills and reads these.

use std::sync::{Arc, Mutex};

use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;

use mcpspec_core::transport::LineTransport;

/// A place among the `--jobs` processes the pool keeps alive at once (POL-24); `None` only for
/// a check's second simultaneous connection when every place is taken by running checks.
pub type Slot = Option<OwnedSemaphorePermit>;

/// What a check's shared connection is handed back as, when its peer is dropped.
#[derive(Debug)]
pub struct Returned {
    pub transport: LineTransport,
    pub at: Instant,
    pub slot: Slot,
    /// Request ids the check sent that were never answered, as JSON text.
    pub outstanding: Vec<String>,
    /// The check broke the connection (it closed, a write failed): not reusable.
    pub broken: bool,
    /// The server closed its output, or stopped reading, during the check, which did not end
    /// it on purpose: it died (charged to the check, POL-21).
    pub died: bool,
}

/// The slot a leased peer puts its connection in when it is dropped.
pub type ReturnSlot = Arc<Mutex<Option<Returned>>>;
