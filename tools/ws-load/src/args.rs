//! The command line: `ws-load echo|broadcast --url ws://HOST:PORT/PATH ...`, parsed by hand
//! (no argument-parsing crate: compile time counts). Every mistake is an `Err` with a one-line
//! reason; main turns it into exit code 2 and the usage text.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

pub const USAGE: &str = "\
usage: ws-load echo      --url ws://127.0.0.1:PORT/ws/echo -c CONNECTIONS -d SECONDS --size BYTES [--binary] [-t THREADS] [--timeout SECONDS]
       ws-load broadcast --url ws://127.0.0.1:PORT/ws/broadcast -c SUBSCRIBERS -d SECONDS --size BYTES [-p IN_FLIGHT] [-t THREADS] [--timeout SECONDS]
       ws-load handshake --url https://127.0.0.1:PORT/PATH --ca CERT.pem -c CONNECTIONS -d SECONDS [-t THREADS] [--timeout SECONDS]
       ws-load --help | --version";

pub const HELP: &str = "\
ws-load: a WebSocket load generator (closed loop) that prints one JSON object on stdout;
also a generator of new TLS connections.

  echo        C connections; each sends one message of --size bytes, waits for its echo,
              checks it byte for byte, records the latency, and sends the next.
  broadcast   C subscribers and 1 publisher; the publisher keeps up to -p messages in flight,
              a message is delivered when every subscriber has received it.
  handshake   C connections; each opens a new TLS connection per request (a full handshake:
              no session resumption), sends one GET with Connection: close, reads the answer,
              counts it when its status is 200, and closes; then the next.

options:
  --url URL          ws:// URL (handshake: https://); the host must be 127.0.0.1, localhost or a
                     literal IP address
  --ca FILE          handshake: the PEM certificate(s) to trust, the only ones
  -c N               connections (echo) or subscribers (broadcast), >= 1
  -d SECONDS         length of the measured window (> 0; decimals allowed)
  --size BYTES       payload bytes of every message (>= 1; broadcast >= 8, for its sequence number;
                     not for handshake)
  --binary           echo: binary frames instead of text
  -p N               broadcast: messages in flight at once (default 1)
  -t N               worker threads (default: available parallelism)
  --timeout SECONDS  bound of every wait: a connection's set-up, an echo or delivery, the end (default 5)
  -h, --help         this text
  -V, --version      the version

exit status: 0 it ran (errors are counted in the JSON), 1 no connection could be opened,
2 bad arguments. Progress and diagnostics go to stderr.";

/// The smallest broadcast message: its first 8 bytes carry the sequence number in hex.
pub const MIN_BROADCAST_SIZE: usize = 8;
/// The largest message: tungstenite's default limit for incoming messages.
pub const MAX_SIZE: usize = 64 << 20;
/// Subscribers are counted in 24 bits of a slot (broadcast.rs).
pub const MAX_CONNECTIONS: usize = (1 << 24) - 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Echo,
    Broadcast,
    Handshake,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Echo => "echo",
            Mode::Broadcast => "broadcast",
            Mode::Handshake => "handshake",
        }
    }
}

/// Where to connect: the socket address, and the URL tungstenite sends (Host header, path).
#[derive(Clone, Debug)]
pub struct Target {
    pub url: String,
    pub addr: SocketAddr,
    /// The host as written, without brackets (a TLS server name) ...
    pub host: String,
    /// ... and with its port, as the URL has it (a Host header).
    pub authority: String,
    /// The path and query, at least "/".
    pub path: String,
}

#[derive(Clone, Debug)]
pub struct Args {
    pub mode: Mode,
    pub target: Target,
    pub connections: usize,
    pub duration: Duration,
    pub size: usize,
    pub binary: bool,
    pub in_flight: usize,
    pub threads: usize,
    pub timeout: Duration,
    /// handshake: the PEM file of the certificate(s) to trust.
    pub ca: Option<String>,
}

#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // made once per run
pub enum Parsed {
    Run(Args),
    Help,
    Version,
}

pub fn parse(argv: &[String]) -> Result<Parsed, String> {
    if argv.iter().any(|a| a == "-h" || a == "--help") {
        return Ok(Parsed::Help);
    }
    if argv.iter().any(|a| a == "-V" || a == "--version") {
        return Ok(Parsed::Version);
    }
    let mode = match argv.first().map(String::as_str) {
        Some("echo") => Mode::Echo,
        Some("broadcast") => Mode::Broadcast,
        Some("handshake") => Mode::Handshake,
        Some(other) if other.starts_with('-') => {
            return Err("the mode comes first: ws-load echo|broadcast|handshake ...".into());
        }
        Some(other) => {
            return Err(format!(
                "unknown mode {other:?} (echo, broadcast or handshake)"
            ));
        }
        None => return Err("no mode given (echo, broadcast or handshake)".into()),
    };

    let mut url = None;
    let mut connections = None;
    let mut duration = None;
    let mut size = None;
    let mut binary = false;
    let mut in_flight = None;
    let mut threads = None;
    let mut timeout = None;
    let mut ca = None;

    let mut rest = argv[1..].iter();
    while let Some(arg) = rest.next() {
        // --flag=value as well as --flag value
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        if flag == "--binary" {
            if inline.is_some() {
                return Err("--binary takes no value".into());
            }
            if mode != Mode::Echo {
                return Err("--binary applies to echo only".into());
            }
            binary = true;
            continue;
        }
        let known = [
            "--url",
            "-c",
            "--connections",
            "-d",
            "--duration",
            "--size",
            "-p",
            "--in-flight",
            "-t",
            "--threads",
            "--timeout",
            "--ca",
        ];
        if !known.contains(&flag) {
            return Err(format!("unknown argument {arg:?}"));
        }
        let value = match inline {
            Some(v) => v,
            None => rest
                .next()
                .ok_or_else(|| format!("{flag} needs a value"))?
                .clone(),
        };
        match flag {
            "--url" => url = Some(value),
            "-c" | "--connections" => connections = Some(count(flag, &value)?),
            "-d" | "--duration" => duration = Some(seconds(flag, &value)?),
            "--size" => {
                if mode == Mode::Handshake {
                    return Err("--size applies to echo and broadcast only".into());
                }
                size = Some(count(flag, &value)?)
            }
            "--ca" => {
                if mode != Mode::Handshake {
                    return Err("--ca applies to handshake only".into());
                }
                ca = Some(value)
            }
            "-p" | "--in-flight" => {
                if mode != Mode::Broadcast {
                    return Err(format!("{flag} applies to broadcast only"));
                }
                in_flight = Some(count(flag, &value)?)
            }
            "-t" | "--threads" => threads = Some(count(flag, &value)?),
            "--timeout" => timeout = Some(seconds(flag, &value)?),
            _ => unreachable!(),
        }
    }

    let url = url.ok_or("--url is required")?;
    let target = if mode == Mode::Handshake {
        target_of(&url, "https", 443)?
    } else {
        target(&url)?
    };
    let connections = connections.ok_or("-c is required")?;
    if connections > MAX_CONNECTIONS {
        return Err(format!("-c {connections} is more than {MAX_CONNECTIONS}"));
    }
    let duration = duration.ok_or("-d is required")?;
    let size = match mode {
        Mode::Handshake => 0,
        _ => size.ok_or("--size is required")?,
    };
    if mode == Mode::Handshake && ca.is_none() {
        return Err("handshake needs --ca: the certificate to trust".into());
    }
    if size > MAX_SIZE {
        return Err(format!("--size {size} is more than {MAX_SIZE}"));
    }
    if mode == Mode::Broadcast && size < MIN_BROADCAST_SIZE {
        return Err(format!(
            "broadcast needs --size >= {MIN_BROADCAST_SIZE}: every message carries its sequence number"
        ));
    }
    let threads = threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    Ok(Parsed::Run(Args {
        mode,
        target,
        connections,
        duration,
        size,
        binary,
        in_flight: in_flight.unwrap_or(1),
        threads,
        timeout: timeout.unwrap_or(Duration::from_secs(5)),
        ca,
    }))
}

/// A whole number >= 1.
fn count(flag: &str, value: &str) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(0) => Err(format!("{flag} must be at least 1")),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("{flag} takes a whole number, not {value:?}")),
    }
}

/// A number of seconds > 0 (decimals allowed), at most a day.
fn seconds(flag: &str, value: &str) -> Result<Duration, String> {
    match value.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Ok(Duration::from_secs_f64(s)),
        Ok(_) => Err(format!(
            "{flag} must be more than 0 seconds and at most a day"
        )),
        Err(_) => Err(format!("{flag} takes a number of seconds, not {value:?}")),
    }
}

/// ws://HOST[:PORT][/PATH][?QUERY] with HOST 127.0.0.1, localhost or a literal IP address:
/// a load tool aims at a server the user runs, never at a name to be looked up.
pub fn target(url: &str) -> Result<Target, String> {
    if url.len() >= 6 && url[..6].eq_ignore_ascii_case("wss://") {
        return Err("wss:// is not supported: ws-load speaks plain ws:// only".into());
    }
    target_of(url, "ws", 80)
}

/// `wanted`://HOST[:PORT][/PATH][?QUERY], the same rules for the host; `port` when none is given.
pub fn target_of(url: &str, wanted: &str, default_port: u16) -> Result<Target, String> {
    let scheme_end = url
        .find("://")
        .ok_or_else(|| format!("{url:?} is not a {wanted}:// URL"))?;
    let scheme = &url[..scheme_end];
    if !scheme.eq_ignore_ascii_case(wanted) {
        return Err(format!("{url:?} is not a {wanted}:// URL"));
    }
    let rest = &url[scheme_end + 3..];
    let split = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(split);
    if tail.contains('#') {
        return Err(format!("{url:?}: a request's URL has no #fragment"));
    }
    if authority.contains('@') {
        return Err(format!("{url:?}: no user name or password in the URL"));
    }
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let close = v6
            .find(']')
            .ok_or_else(|| format!("{url:?}: unclosed [ in the host"))?;
        let after = &v6[close + 1..];
        let port = match after {
            "" => None,
            p if p.starts_with(':') => Some(&p[1..]),
            _ => return Err(format!("{url:?}: bad host")),
        };
        (&v6[..close], port)
    } else {
        match authority.split_once(':') {
            Some((_, p)) if p.contains(':') => {
                return Err(format!(
                    "{url:?}: an IPv6 host goes in brackets, {wanted}://[::1]:PORT/"
                ));
            }
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    let port: u16 = match port {
        None => default_port,
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 => n,
            _ => return Err(format!("{url:?}: bad port {p:?}")),
        },
    };
    let ip: IpAddr = if host.eq_ignore_ascii_case("localhost") {
        IpAddr::V4(Ipv4Addr::LOCALHOST)
    } else {
        host.parse().map_err(|_| {
            format!(
                "host {host:?} is not local: ws-load loads only 127.0.0.1, localhost or a literal IP address"
            )
        })?
    };
    let path = if tail.is_empty() {
        "/".to_string()
    } else {
        tail.to_string()
    };
    let path = if path.starts_with('?') {
        format!("/{path}")
    } else {
        path
    };
    let url = format!("{wanted}://{authority}{path}");
    Ok(Target {
        url,
        addr: SocketAddr::new(ip, port),
        host: host.to_string(),
        authority: authority.to_string(),
        path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn urls() {
        let t = target("ws://127.0.0.1:3004/ws/echo").unwrap();
        assert_eq!(t.addr.to_string(), "127.0.0.1:3004");
        assert_eq!(t.url, "ws://127.0.0.1:3004/ws/echo");
        let t = target("ws://localhost:9/x?y=1").unwrap();
        assert_eq!(t.addr.to_string(), "127.0.0.1:9");
        let t = target("ws://[::1]:8080").unwrap();
        assert_eq!(t.addr.to_string(), "[::1]:8080");
        assert_eq!(t.url, "ws://[::1]:8080/");
        assert_eq!(target("ws://10.0.0.2/ws").unwrap().addr.port(), 80);
        assert!(target("wss://127.0.0.1/").is_err());
        assert!(target("http://127.0.0.1/").is_err());
        assert!(target("ws://example.com/").is_err());
        assert!(target("ws://127.0.0.1:0/").is_err());
        assert!(target("ws://127.0.0.1:99999/").is_err());
        assert!(target("ws://u@127.0.0.1/").is_err());
        let t = target_of("https://localhost:4004/api/test", "https", 443).unwrap();
        assert_eq!(t.addr.to_string(), "127.0.0.1:4004");
        assert_eq!((t.host.as_str(), t.authority.as_str()), ("localhost", "localhost:4004"));
        assert_eq!(t.path, "/api/test");
        assert_eq!(target_of("https://[::1]", "https", 443).unwrap().host, "::1");
        assert_eq!(target_of("https://127.0.0.1", "https", 443).unwrap().addr.port(), 443);
        assert!(target_of("ws://127.0.0.1/", "https", 443).is_err());
        assert!(target_of("https://example.com/", "https", 443).is_err());
    }

    #[test]
    fn arguments() {
        let p = parse(&args(
            "echo --url ws://127.0.0.1:1/ -c 5 -d 1.5 --size 32 --binary -t 2",
        ));
        let Ok(Parsed::Run(a)) = p else {
            panic!("{p:?}")
        };
        assert_eq!(
            (a.connections, a.size, a.binary, a.threads),
            (5, 32, true, 2)
        );
        assert_eq!(a.duration, Duration::from_millis(1500));
        assert_eq!(a.timeout, Duration::from_secs(5));
        let p = parse(&args(
            "broadcast --url=ws://127.0.0.1:1/ -c 5 -d 1 --size 8 -p 4",
        ));
        let Ok(Parsed::Run(a)) = p else {
            panic!("{p:?}")
        };
        assert_eq!((a.mode, a.in_flight), (Mode::Broadcast, 4));
        let p = parse(&args(
            "handshake --url https://127.0.0.1:4004/api/test --ca c.pem -c 3 -d 1",
        ));
        let Ok(Parsed::Run(a)) = p else {
            panic!("{p:?}")
        };
        assert_eq!((a.mode, a.ca.as_deref(), a.size), (Mode::Handshake, Some("c.pem"), 0));
        for bad in [
            "",
            "--url ws://127.0.0.1:1/ echo",
            "echo -c 1 -d 1 --size 1",
            "echo --url ws://127.0.0.1:1/ -c 0 -d 1 --size 1",
            "echo --url ws://127.0.0.1:1/ -c 1 -d 0 --size 1",
            "echo --url ws://127.0.0.1:1/ -c 1 -d 1 --size 0",
            "echo --url ws://127.0.0.1:1/ -c 1 -d 1 --size 1 --frobnicate",
            "echo --url ws://127.0.0.1:1/ -c 1 -d 1 --size 1 -p 2",
            "echo --url ws://127.0.0.1:1/ -c 1 -d 1 --size",
            "broadcast --url ws://127.0.0.1:1/ -c 1 -d 1 --size 4",
            "broadcast --url ws://127.0.0.1:1/ -c 1 -d 1 --size 8 --binary",
            "echo --url http://127.0.0.1:1/ -c 1 -d 1 --size 1",
            "echo --url ws://127.0.0.1:1/ -c 1 -d 1 --size 1 --ca c.pem",
            "handshake --url https://127.0.0.1:1/ -c 1 -d 1",
            "handshake --url ws://127.0.0.1:1/ --ca c.pem -c 1 -d 1",
            "handshake --url https://127.0.0.1:1/ --ca c.pem -c 1 -d 1 --size 8",
        ] {
            assert!(parse(&args(bad)).is_err(), "{bad}");
        }
        assert!(matches!(parse(&args("echo --help")), Ok(Parsed::Help)));
        assert!(matches!(parse(&args("--version")), Ok(Parsed::Version)));
    }
}
