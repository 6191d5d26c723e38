//! The one JSON object on stdout, written by hand (a flat, fixed shape: no serde needed).

use std::fmt::Write;
use std::time::Duration;

use hdrhistogram::Histogram;

use crate::args::Args;
use crate::stats::Counts;

pub struct Run {
    /// Connections (echo) or subscribers (broadcast) that completed their handshake.
    pub connected: usize,
    pub connect_errors: u64,
    pub handshake_errors: u64,
    /// Window start to the last counted message (or to the end of measuring, if none).
    pub duration: Duration,
    /// Broadcast: the warm-up before the window, and its messages.
    pub warm_up: Option<(Duration, u64)>,
    pub counts: Counts,
}

pub fn json(args: &Args, run: &Run, latency: &Histogram<u64>) -> String {
    let c = &run.counts;
    let secs = run.duration.as_secs_f64();
    let rate = |n: u64| if secs > 0.0 { n as f64 / secs } else { 0.0 };
    let mut o = String::with_capacity(1024);
    let _ = write!(
        o,
        "{{\"tool\":\"ws-load\",\"version\":\"{}\",\"mode\":\"{}\",\"url\":{},",
        env!("CARGO_PKG_VERSION"),
        args.mode.name(),
        string(&args.target.url)
    );
    let _ = write!(
        o,
        "\"connections\":{},\"connected\":{},\"message_bytes\":{},\"binary\":{},\"in_flight\":{},\"threads\":{},",
        args.connections, run.connected, args.size, args.binary, args.in_flight, args.threads
    );
    let _ = write!(
        o,
        "\"requested_duration_s\":{},\"timeout_s\":{},",
        number(args.duration.as_secs_f64(), 6),
        number(args.timeout.as_secs_f64(), 6)
    );
    if let Some((w, n)) = run.warm_up {
        let _ = write!(
            o,
            "\"warm_up_s\":{},\"warm_up_messages\":{n},",
            number(w.as_secs_f64(), 6)
        );
    }
    let _ = write!(
        o,
        "\"duration_s\":{},\"messages\":{},\"deliveries\":{},\"messages_per_s\":{},\"deliveries_per_s\":{},",
        number(secs, 6),
        c.messages,
        c.deliveries,
        number(rate(c.messages), 1),
        number(rate(c.deliveries), 1)
    );
    let _ = write!(
        o,
        "\"sent\":{},\"mismatched\":{},\"timeouts\":{},",
        c.sent, c.mismatched, c.timeouts
    );
    let _ = write!(
        o,
        "\"errors\":{{\"connect\":{},\"handshake\":{},\"read\":{},\"write\":{},\"closed_by_server\":{},\"self_delivery\":{}}},",
        run.connect_errors,
        run.handshake_errors,
        c.read,
        c.write,
        c.closed_by_server,
        c.self_delivery
    );
    if c.latency_count == 0 {
        o.push_str(
            "\"latency_us\":{\"mean\":null,\"p50\":null,\"p90\":null,\"p99\":null,\"p999\":null,\"max\":null},",
        );
    } else {
        let us = |ns: u64| number(ns as f64 / 1000.0, 1);
        let mean = c.latency_sum_ns as f64 / c.latency_count as f64 / 1000.0;
        let _ = write!(
            o,
            "\"latency_us\":{{\"mean\":{},\"p50\":{},\"p90\":{},\"p99\":{},\"p999\":{},\"max\":{}}},",
            number(mean, 1),
            us(latency.value_at_quantile(0.5)),
            us(latency.value_at_quantile(0.9)),
            us(latency.value_at_quantile(0.99)),
            us(latency.value_at_quantile(0.999)),
            us(latency.max())
        );
    }
    let _ = write!(
        o,
        "\"bytes_sent\":{},\"bytes_received\":{}}}",
        c.bytes_sent, c.bytes_received
    );
    o
}

/// A finite number with at most `decimals` decimals (trailing zeros dropped).
fn number(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return "null".into();
    }
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn string(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for ch in s.chars() {
        match ch {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_strings() {
        assert_eq!(number(2.0, 6), "2");
        assert_eq!(number(2.00134, 4), "2.0013");
        assert_eq!(number(f64::NAN, 1), "null");
        assert_eq!(number(0.0, 1), "0");
        assert_eq!(string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
    }
}
