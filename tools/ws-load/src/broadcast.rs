//! broadcast: one publisher keeps up to `-p` messages in flight; every subscriber reads, checks
//! and counts what it gets; the subscriber whose receipt is a message's last records its latency
//! (publish to that receipt) and tells the publisher, which then publishes the next.
//!
//! A message in flight has a slot, `seq % RING`, one atomic word: (seq + 1) << 24 | receipts
//! still missing. A receipt takes one off (compare-and-swap); the one that takes the last off
//! completed the message; the publisher, when the message's --timeout passes first, clears the
//! slot itself (a time-out). Exactly one of the two wins, so no message is counted twice.
//!
//! Before the window the publisher sends warm-up messages (the same size, sequence numbers
//! below the window's first) until every subscriber has received one: a server that registers a
//! connection some time after its handshake would otherwise miss the first measured messages.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::*};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, sleep, sleep_until};
use tokio_tungstenite::tungstenite::{Bytes, Message, Utf8Bytes};

use crate::conn::{self, Next, Ws};
use crate::payload;
use crate::stats::Counts;

const LEFT_BITS: u32 = 24;
const LEFT_MASK: u64 = (1 << LEFT_BITS) - 1;
/// Warm-up: a new warm-up message this often until every subscriber has had one.
const WARM_UP_EVERY: Duration = Duration::from_millis(100);

pub struct Shared {
    slots: Box<[AtomicU64]>,
    /// When the slot's message was published: ns since `base`.
    published_at: Box<[AtomicU64]>,
    base: Instant,
    /// Sequence numbers sent so far (warm-up included): a receipt at or past it was never sent.
    published: AtomicU64,
    /// The window's first sequence number; below it, warm-up. u64::MAX until the window starts.
    first_measured: AtomicU64,
    /// Subscribers that have received a warm-up message.
    ready: AtomicUsize,
    /// Subscribers still connected.
    live: AtomicUsize,
    done: mpsc::UnboundedSender<u64>,
    size: usize,
}

impl Shared {
    pub fn new(
        subscribers: usize,
        in_flight: usize,
        size: usize,
    ) -> (Arc<Shared>, mpsc::UnboundedReceiver<u64>) {
        // Room for messages completing out of order: a slot is reused only RING messages later.
        let ring = (in_flight * 4).next_power_of_two().max(64);
        let (done, done_rx) = mpsc::unbounded_channel();
        let shared = Shared {
            slots: (0..ring).map(|_| AtomicU64::new(0)).collect(),
            published_at: (0..ring).map(|_| AtomicU64::new(0)).collect(),
            base: Instant::now(),
            published: AtomicU64::new(0),
            first_measured: AtomicU64::new(u64::MAX),
            ready: AtomicUsize::new(0),
            live: AtomicUsize::new(subscribers),
            done,
            size,
        };
        (Arc::new(shared), done_rx)
    }

    fn ring(&self) -> u64 {
        self.slots.len() as u64
    }

    fn slot(&self, seq: u64) -> usize {
        (seq % self.ring()) as usize
    }

    fn ns(&self, t: Instant) -> u64 {
        (t - self.base).as_nanos() as u64
    }

    /// A message that was really sent: its sequence number, or None.
    fn sent_seq(&self, bytes: &[u8]) -> Option<u64> {
        payload::check_text(bytes, self.size).filter(|&s| s < self.published.load(Acquire))
    }
}

/// One subscriber, from before the warm-up until `stop` (or the server ends it).
pub async fn subscriber(
    mut ws: Ws,
    sh: Arc<Shared>,
    mut stop: watch::Receiver<bool>,
    grace: Duration,
) -> Counts {
    let mut c = Counts::default();
    let mut ready = false;
    let mut last_seq: Option<u64> = None;
    let ended = loop {
        let next = tokio::select! {
            biased;
            m = ws.next() => m,
            _ = stop.changed() => break None,
        };
        let msg = match next {
            Some(Ok(m)) => m,
            None => break Some(Next::Closed),
            Some(Err(e)) => break Some(conn::classify(e)),
        };
        let text = match msg {
            Message::Text(t) => t,
            Message::Binary(b) => {
                c.bytes_received += b.len() as u64;
                c.mismatched += 1;
                continue;
            }
            Message::Close(_) => break Some(Next::Closed),
            _ => continue,
        };
        let at = Instant::now();
        // Exactly a message that was sent, and each once, in order (one publisher, one route).
        let seq = sh.sent_seq(text.as_bytes());
        if let Some(seq) = seq.filter(|&s| s < sh.first_measured.load(Acquire)) {
            // Warm-up: not counted, only noted.
            last_seq = Some(seq);
            if !ready {
                ready = true;
                sh.ready.fetch_add(1, AcqRel);
            }
            continue;
        }
        c.bytes_received += text.len() as u64;
        let Some(seq) = seq.filter(|&s| last_seq.is_none_or(|last| s > last)) else {
            c.mismatched += 1;
            continue;
        };
        last_seq = Some(seq);
        c.deliveries += 1;
        receipt(&sh, seq, at, &mut c);
    };
    if let Some(end) = &ended {
        sh.live.fetch_sub(1, AcqRel);
        conn::count_end(&mut c, end);
    }
    c.finished = Some(Instant::now());
    if ended.is_none() {
        conn::close(&mut ws, grace, |m| {
            // Deliveries still arriving (of messages already timed out) while closing.
            if let Message::Text(t) = m {
                c.bytes_received += t.len() as u64;
                match sh.sent_seq(t.as_bytes()) {
                    Some(_) => c.deliveries += 1,
                    None => c.mismatched += 1,
                }
            }
        })
        .await;
    }
    c
}

/// Takes one receipt off the message's slot; the last one completes it.
fn receipt(sh: &Shared, seq: u64, at: Instant, c: &mut Counts) {
    let slot = &sh.slots[sh.slot(seq)];
    let mut cur = slot.load(Acquire);
    loop {
        // Another sequence number, or none: this message already timed out (a late delivery).
        if cur >> LEFT_BITS != seq + 1 || cur & LEFT_MASK == 0 {
            return;
        }
        let new = if cur & LEFT_MASK == 1 { 0 } else { cur - 1 };
        match slot.compare_exchange_weak(cur, new, AcqRel, Acquire) {
            Ok(_) => break,
            Err(now) => cur = now,
        }
    }
    if cur & LEFT_MASK == 1 {
        let published = sh.published_at[sh.slot(seq)].load(Acquire);
        c.counted(at, sh.ns(at).saturating_sub(published));
        let _ = sh.done.send(seq);
    }
}

pub struct Plan {
    pub duration: Duration,
    pub in_flight: usize,
    pub timeout: Duration,
    pub grace: Duration,
}

/// What the publisher hands back: its counts and when the window started.
pub struct Published {
    pub counts: Counts,
    pub start: Instant,
    pub warm_up: Duration,
    /// Warm-up messages sent (each also reaches the server and every subscriber).
    pub warm_up_messages: u64,
}

/// The publisher: warm-up, then the window, then waiting for what is still in flight.
pub async fn publisher(
    mut ws: Ws,
    sh: Arc<Shared>,
    mut done: mpsc::UnboundedReceiver<u64>,
    plan: Plan,
) -> Published {
    let mut c = Counts::default();
    let size = sh.size;
    let mut seq = 0u64;
    let mut open = true;
    let mut timer = conn::Timer::new(Instant::now() + plan.timeout);

    // Warm-up, bounded by --timeout.
    let warm_start = Instant::now();
    let warm_until = warm_start + plan.timeout;
    'warm: while open {
        let now = Instant::now();
        if now >= warm_until {
            let (ready, live) = (sh.ready.load(Acquire), sh.live.load(Acquire));
            eprintln!(
                "ws-load: only {ready} of {live} subscribers received a warm-up message within {:?}; measuring anyway",
                plan.timeout
            );
            break;
        }
        sh.published.store(seq + 1, Release);
        if let Err(e) = conn::send(&mut ws, text(seq, size), &mut timer, warm_until).await {
            conn::count_send_error(&mut c, &e);
            open = false;
            break;
        }
        seq += 1;
        let again = (now + WARM_UP_EVERY).min(warm_until);
        while Instant::now() < again {
            if sh.ready.load(Acquire) >= sh.live.load(Acquire) {
                break 'warm;
            }
            tokio::select! {
                m = ws.next() => if let Some(end) = own(&sh, m, &mut c) {
                    conn::count_end(&mut c, &end);
                    open = false;
                    break 'warm;
                },
                _ = sleep(Duration::from_millis(1)) => {}
            }
        }
    }
    let warm_up = warm_start.elapsed();
    let warm_up_messages = seq;
    sh.first_measured.store(seq, Release);

    // The window.
    let start = Instant::now();
    let deadline = start + plan.duration;
    let ring = sh.ring();
    let mut in_flight: VecDeque<(u64, Instant)> = VecDeque::with_capacity(plan.in_flight);
    loop {
        let mut now = Instant::now();
        while open
            && now < deadline
            && in_flight.len() < plan.in_flight
            && in_flight
                .front()
                .is_none_or(|&(oldest, _)| seq < oldest + ring)
        {
            let live = sh.live.load(Acquire) as u64;
            if live == 0 {
                break;
            }
            let slot = sh.slot(seq);
            sh.published_at[slot].store(sh.ns(now), Release);
            sh.slots[slot].store(((seq + 1) << LEFT_BITS) | live, Release);
            sh.published.store(seq + 1, Release);
            c.sent += 1;
            c.bytes_sent += size as u64;
            in_flight.push_back((seq, now));
            if let Err(e) =
                conn::send(&mut ws, text(seq, size), &mut timer, now + plan.timeout).await
            {
                // It may or may not have gone out: it completes or times out like the others.
                conn::count_send_error(&mut c, &e);
                open = false;
            }
            seq += 1;
            now = Instant::now();
        }
        let Some(&(oldest, published)) = in_flight.front() else {
            if !open || now >= deadline || sh.live.load(Acquire) == 0 {
                break;
            }
            continue;
        };
        tokio::select! {
            biased;
            Some(seq) = done.recv() => {
                if let Some(i) = in_flight.iter().position(|&(s, _)| s == seq) {
                    in_flight.remove(i);
                }
            }
            m = ws.next(), if open => if let Some(end) = own(&sh, m, &mut c) {
                conn::count_end(&mut c, &end);
                open = false;
            },
            _ = sleep_until(published + plan.timeout) => {
                // Not received by every subscriber in time, unless the last receipt wins the race
                // (then its completion is on its way).
                let slot = &sh.slots[sh.slot(oldest)];
                let mut cur = slot.load(Acquire);
                while cur >> LEFT_BITS == oldest + 1 {
                    match slot.compare_exchange(cur, 0, AcqRel, Acquire) {
                        Ok(_) => {
                            c.timeouts += 1;
                            in_flight.pop_front();
                            break;
                        }
                        Err(now) => cur = now,
                    }
                }
            }
        }
    }
    c.finished = Some(Instant::now());
    if open {
        conn::close(&mut ws, plan.grace, |m| {
            if let Message::Text(t) = &m {
                c.bytes_received += t.len() as u64;
                if sh.sent_seq(t.as_bytes()).is_some() {
                    c.self_delivery += 1;
                    return;
                }
            }
            c.mismatched += 1;
        })
        .await;
    }
    Published {
        counts: c,
        start,
        warm_up,
        warm_up_messages,
    }
}

fn text(seq: u64, size: usize) -> Message {
    let body = Bytes::from(payload::make(seq, size, false));
    // SAFETY: payload::make's text is ASCII, so valid UTF-8.
    Message::Text(unsafe { Utf8Bytes::from_bytes_unchecked(body) })
}

/// A message on the publisher's own connection: its own message back is a self-delivery
/// (the route must not echo), anything else a mismatch; a warm-up message is not counted.
/// Some(end) when the connection ended.
fn own(
    sh: &Shared,
    m: Option<Result<Message, tokio_tungstenite::tungstenite::Error>>,
    c: &mut Counts,
) -> Option<Next> {
    match m {
        None => Some(Next::Closed),
        Some(Err(e)) => Some(conn::classify(e)),
        Some(Ok(Message::Close(_))) => Some(Next::Closed),
        Some(Ok(Message::Text(t))) => {
            match sh.sent_seq(t.as_bytes()) {
                // A warm-up message: outside the counts.
                Some(s) if s < sh.first_measured.load(Acquire) => {}
                Some(_) => {
                    c.bytes_received += t.len() as u64;
                    c.self_delivery += 1;
                }
                None => {
                    c.bytes_received += t.len() as u64;
                    c.mismatched += 1;
                }
            }
            None
        }
        Some(Ok(Message::Binary(b))) => {
            c.bytes_received += b.len() as u64;
            c.mismatched += 1;
            None
        }
        Some(Ok(_)) => None,
    }
}
