//! Opening a connection (TCP connect, then the WebSocket handshake, each failure counted apart),
//! opening many at once, reading the next data message, and closing with code 1000.

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use std::future::Future;
use std::pin::Pin;
use tokio::net::TcpStream;
use tokio::sync::Semaphore;

use tokio::time::{Instant, Sleep, timeout_at};
use tokio_tungstenite::tungstenite::error::ProtocolError;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::{WebSocketStream, client_async_with_config};

use crate::args::Target;
use crate::stats::Counts;

pub type Ws = WebSocketStream<TcpStream>;

/// At most this many handshakes under way at once: a burst of thousands of SYNs would overflow
/// the server's accept queue and turn into retransmissions.
const PARALLEL_OPENS: usize = 512;

#[derive(Debug)]
pub enum OpenError {
    Connect(String),
    Handshake(String),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            OpenError::Connect(e) => write!(f, "connect: {e}"),
            OpenError::Handshake(e) => write!(f, "handshake: {e}"),
        }
    }
}

fn config(size: usize) -> WebSocketConfig {
    // The default read buffer (128 KiB, allocated up front) times thousands of connections is
    // a lot of memory, and tungstenite zero-fills the free part before every read: two
    // messages' worth (at least 1 KiB) keeps that cheap.
    let mut c = WebSocketConfig::default();
    c.read_buffer_size = (2 * (size + 14)).clamp(1 << 10, 256 << 10);
    c
}

/// One connection: TCP (Nagle off), then the HTTP upgrade; both within `timeout`.
pub async fn open(target: &Target, size: usize, timeout: Duration) -> Result<Ws, OpenError> {
    let until = Instant::now() + timeout;
    let tcp = match timeout_at(until, TcpStream::connect(target.addr)).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => return Err(OpenError::Connect(format!("{} ({})", e, target.addr))),
        Err(_) => {
            return Err(OpenError::Connect(format!(
                "no answer from {} within {:?}",
                target.addr, timeout
            )));
        }
    };
    let _ = tcp.set_nodelay(true);
    match timeout_at(
        until,
        client_async_with_config(target.url.as_str(), tcp, Some(config(size))),
    )
    .await
    {
        Ok(Ok((ws, _response))) => Ok(ws),
        Ok(Err(WsError::Http(response))) => {
            let status = response.status();
            Err(OpenError::Handshake(format!(
                "HTTP {} {} from {} (expected 101 Switching Protocols)",
                status.as_u16(),
                status.canonical_reason().unwrap_or(""),
                target.url
            )))
        }
        Ok(Err(e)) => Err(OpenError::Handshake(format!("{e} ({})", target.url))),
        Err(_) => Err(OpenError::Handshake(format!(
            "no 101 answer from {} within {:?}",
            target.url, timeout
        ))),
    }
}

/// Opens `n` connections at once (at most PARALLEL_OPENS under way), spread over the runtime's
/// threads; each result in order.
pub async fn open_all(
    target: &Target,
    n: usize,
    size: usize,
    timeout: Duration,
) -> Vec<Result<Ws, OpenError>> {
    let gate = Arc::new(Semaphore::new(PARALLEL_OPENS));
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let gate = gate.clone();
            let target = target.clone();
            tokio::spawn(async move {
                let _permit = gate.acquire_owned().await.expect("semaphore open");
                open(&target, size, timeout).await
            })
        })
        .collect();
    let mut out = Vec::with_capacity(n);
    for h in handles {
        out.push(match h.await {
            Ok(r) => r,
            Err(e) => Err(OpenError::Connect(format!("task failed: {e}"))),
        });
    }
    out
}

/// What reading the next data message gave.
pub enum Next {
    Data(Message),
    /// The server sent a close frame, or ended the TCP stream cleanly.
    Closed,
    /// An I/O error (a reset) or a protocol violation.
    Failed,
    TimedOut,
}

/// A connection's one timer for its waits. A timer per message would be set and cleared on
/// every message (two timer-wheel updates); this one is moved only when it goes off before the
/// wait's bound (once per --timeout at most), since the bounds only ever move later.
pub struct Timer(Pin<Box<Sleep>>);

impl Timer {
    /// `first`: no later than the first bound it will be given.
    pub fn new(first: Instant) -> Timer {
        Timer(Box::pin(tokio::time::sleep_until(first)))
    }

    /// `fut`'s output, or None if `until` came first. `until` is never earlier than a bound
    /// given before.
    pub async fn bound<F: Future>(&mut self, fut: F, until: Instant) -> Option<F::Output> {
        tokio::pin!(fut);
        loop {
            tokio::select! {
                biased;
                out = &mut fut => return Some(out),
                _ = self.0.as_mut() => {
                    if Instant::now() >= until {
                        return None;
                    }
                    self.0.as_mut().reset(until);
                }
            }
        }
    }
}

/// The next text or binary message, skipping pings and pongs (tungstenite answers pings).
pub async fn next_data(ws: &mut Ws, timer: &mut Timer, until: Instant) -> Next {
    loop {
        match timer.bound(ws.next(), until).await {
            None => return Next::TimedOut,
            Some(None) => return Next::Closed,
            Some(Some(Ok(m @ (Message::Text(_) | Message::Binary(_))))) => return Next::Data(m),
            Some(Some(Ok(Message::Close(_)))) => return Next::Closed,
            Some(Some(Ok(_))) => continue,
            Some(Some(Err(e))) => return classify(e),
        }
    }
}

/// A read error: the TCP stream ending without a close frame is the server closing; a reset,
/// another I/O error or a protocol violation is a failed read.
pub fn classify(e: WsError) -> Next {
    match e {
        WsError::ConnectionClosed
        | WsError::AlreadyClosed
        | WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake) => Next::Closed,
        _ => Next::Failed,
    }
}

/// Counts how a connection ended before we closed it.
pub fn count_end(counts: &mut Counts, next: &Next) {
    match next {
        Next::Closed => counts.closed_by_server += 1,
        Next::Failed => counts.read += 1,
        Next::TimedOut => counts.timeouts += 1,
        Next::Data(_) => {}
    }
}

/// Sends a close frame (1000) and waits up to `grace` for the server's; messages still arriving
/// meanwhile are passed to `late`. Whether the server closed in time.
pub async fn close(ws: &mut Ws, grace: Duration, mut late: impl FnMut(Message)) -> bool {
    let until = Instant::now() + grace;
    let frame = CloseFrame {
        code: CloseCode::Normal,
        reason: "".into(),
    };
    match timeout_at(until, ws.close(Some(frame))).await {
        Ok(Ok(())) => {}
        _ => return false,
    }
    loop {
        match timeout_at(until, ws.next()).await {
            Ok(None) => return true,
            Ok(Some(Ok(m @ (Message::Text(_) | Message::Binary(_))))) => late(m),
            Ok(Some(Ok(_))) => continue,
            Ok(Some(Err(_))) | Err(_) => return false,
        }
    }
}

pub enum SendError {
    /// The write failed (counted in errors.write).
    Failed,
    /// The server took nothing within the bound (counted in timeouts).
    TimedOut,
}

/// Sends one message (written and flushed: one write per message) within the bound.
pub async fn send(
    ws: &mut Ws,
    msg: Message,
    timer: &mut Timer,
    until: Instant,
) -> Result<(), SendError> {
    match timer.bound(ws.send(msg), until).await {
        Some(Ok(())) => Ok(()),
        Some(Err(_)) => Err(SendError::Failed),
        None => Err(SendError::TimedOut),
    }
}

pub fn count_send_error(counts: &mut Counts, e: &SendError) {
    match e {
        SendError::Failed => counts.write += 1,
        SendError::TimedOut => counts.timeouts += 1,
    }
}
