//! What one connection counted (summed at the end, no sharing while it runs) and the latency
//! histograms: one HDR histogram per worker thread, so recording takes an uncontended lock and a
//! thousand connections do not each carry one.

use std::sync::{Arc, Mutex};
use tokio::time::Instant;

use hdrhistogram::Histogram;

/// Counts of one connection; `add` sums them.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    pub sent: u64,
    pub messages: u64,
    pub deliveries: u64,
    pub mismatched: u64,
    pub timeouts: u64,
    pub read: u64,
    pub write: u64,
    pub closed_by_server: u64,
    pub self_delivery: u64,
    /// handshake: connections that could not be made, TLS handshakes that failed.
    pub connect: u64,
    pub handshake: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// Sum of the recorded latencies (ns): the exact mean, not the histogram's.
    pub latency_sum_ns: u128,
    pub latency_count: u64,
    /// When the last message counted in `messages` was received.
    pub last_counted: Option<Instant>,
    /// When this connection stopped measuring (before its close handshake).
    pub finished: Option<Instant>,
}

impl Counts {
    pub fn add(&mut self, o: &Counts) {
        self.sent += o.sent;
        self.messages += o.messages;
        self.deliveries += o.deliveries;
        self.mismatched += o.mismatched;
        self.timeouts += o.timeouts;
        self.read += o.read;
        self.write += o.write;
        self.closed_by_server += o.closed_by_server;
        self.self_delivery += o.self_delivery;
        self.connect += o.connect;
        self.handshake += o.handshake;
        self.bytes_sent += o.bytes_sent;
        self.bytes_received += o.bytes_received;
        self.latency_sum_ns += o.latency_sum_ns;
        self.latency_count += o.latency_count;
        self.last_counted = later(self.last_counted, o.last_counted);
        self.finished = later(self.finished, o.finished);
    }

    /// A counted message received at `at`, `latency_ns` after it was sent.
    pub fn counted(&mut self, at: Instant, latency_ns: u64) {
        self.messages += 1;
        self.last_counted = Some(at);
        self.latency_sum_ns += u128::from(latency_ns);
        self.latency_count += 1;
        record(latency_ns);
    }
}

fn later(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// 1 ns to 1 hour at 3 significant digits (0.1%): ~270 KiB per thread.
fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid histogram bounds")
}

type Shared = Arc<Mutex<Histogram<u64>>>;

static ALL: Mutex<Vec<Shared>> = Mutex::new(Vec::new());

thread_local! {
    static MINE: Shared = {
        let h = Arc::new(Mutex::new(histogram()));
        ALL.lock().unwrap().push(h.clone());
        h
    };
}

/// Records a latency in nanoseconds (values past an hour count as an hour).
pub fn record(ns: u64) {
    MINE.with(|h| h.lock().unwrap().saturating_record(ns.max(1)));
}

/// Every thread's histogram added up: call once all recording is done.
pub fn merged() -> Histogram<u64> {
    let mut all = histogram();
    for h in ALL.lock().unwrap().iter() {
        all.add(&*h.lock().unwrap()).expect("same bounds");
    }
    all
}
