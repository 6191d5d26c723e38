//! echo: each connection a closed loop of one message in flight: send, wait for the echo, check
//! it byte for byte, record the latency, send the next.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;
use tokio_tungstenite::tungstenite::{Bytes, Message, Utf8Bytes};

use crate::conn::{self, Next, Ws};
use crate::payload;
use crate::stats::Counts;

pub struct Plan {
    pub deadline: Instant,
    pub size: usize,
    pub binary: bool,
    pub timeout: Duration,
    pub grace: Duration,
}

/// One connection from the window's start to its close. `id` makes its messages differ from
/// every other connection's (in the sequence number's high digits, when the size shows them).
pub async fn connection(mut ws: Ws, id: u64, plan: Arc<Plan>) -> Counts {
    let mut c = Counts::default();
    let mut seq = id << 32;
    let mut open = true;
    let mut timer = conn::Timer::new(Instant::now() + plan.timeout);
    while Instant::now() < plan.deadline {
        let body = Bytes::from(payload::make(seq, plan.size, plan.binary));
        seq += 1;
        let msg = if plan.binary {
            Message::Binary(body.clone())
        } else {
            // SAFETY: payload::make's text is ASCII, so valid UTF-8.
            Message::Text(unsafe { Utf8Bytes::from_bytes_unchecked(body.clone()) })
        };
        c.sent += 1;
        c.bytes_sent += plan.size as u64;
        let t0 = Instant::now();
        let until = t0 + plan.timeout;
        if let Err(e) = conn::send(&mut ws, msg, &mut timer, until).await {
            conn::count_send_error(&mut c, &e);
            open = matches!(e, conn::SendError::TimedOut);
            break;
        }
        match conn::next_data(&mut ws, &mut timer, until).await {
            Next::Data(m) => {
                let at = Instant::now();
                let (got, is_binary): (&[u8], bool) = match &m {
                    Message::Binary(b) => (b, true),
                    Message::Text(t) => (t.as_bytes(), false),
                    _ => unreachable!("next_data returns data messages only"),
                };
                c.bytes_received += got.len() as u64;
                if is_binary == plan.binary && got == &body[..] {
                    c.counted(at, (at - t0).as_nanos() as u64);
                } else {
                    c.mismatched += 1;
                }
            }
            end => {
                conn::count_end(&mut c, &end);
                // After a time-out the connection is still ours to close; not after the others.
                open = matches!(end, Next::TimedOut);
                break;
            }
        }
    }
    c.deliveries = c.messages;
    c.finished = Some(Instant::now());
    if open {
        conn::close(&mut ws, plan.grace, |_| {}).await;
    }
    c
}
