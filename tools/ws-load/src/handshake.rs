//! handshake: each connection a closed loop of one new TLS connection per request: TCP connect,
//! a full TLS handshake (session resumption and tickets off, so every handshake is a full one),
//! one HTTP/1.1 GET with `Connection: close`, the answer read to its end and its status checked,
//! then close_notify and the socket closed by this side. What a TLS terminator pays per new
//! client, which a generator that resumes sessions (wrk, oha) cannot show.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rustls::client::Resumption;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{WebPkiSupportedAlgorithms, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, SignatureScheme};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{Instant, timeout_at};
use tokio_rustls::TlsConnector;

use crate::args::Target;
use crate::stats::Counts;

/// The most an answer may be: a contract route's answer is a few hundred bytes.
const MAX_ANSWER: usize = 1 << 20;

pub struct Plan {
    pub deadline: Instant,
    pub timeout: Duration,
    pub addr: SocketAddr,
    pub connector: TlsConnector,
    pub server_name: ServerName<'static>,
    pub request: Vec<u8>,
}

impl Plan {
    /// The plan of a run: `ca` is the PEM file of the certificate(s) to trust, the only ones.
    pub fn new(
        target: &Target,
        ca: &str,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<Plan, String> {
        let certs = CertificateDer::pem_file_iter(ca).map_err(|e| format!("--ca {ca}: {e}"))?;
        let pinned = certs
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("--ca {ca}: {e}"))?;
        if pinned.is_empty() {
            return Err(format!("--ca {ca}: no certificate in the file"));
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier = Arc::new(Pinned {
            certs: pinned,
            algorithms: provider.signature_verification_algorithms,
        });
        let mut config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS: {e}"))?
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        config.resumption = Resumption::disabled();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let server_name = ServerName::try_from(target.host.clone())
            .map_err(|e| format!("{:?}: {e}", target.host))?;
        let request = format!(
            "GET {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            target.path, target.authority
        );
        Ok(Plan {
            deadline,
            timeout,
            addr: target.addr,
            connector: TlsConnector::from(Arc::new(config)),
            server_name,
            request: request.into_bytes(),
        })
    }
}

/// Trusts the server whose certificate is one of these, as they are (a run's certificate is
/// self-signed and marked a CA, which webpki refuses as a server's own: pinning it instead),
/// and checks the handshake's signature with it as any client does.
#[derive(Debug)]
struct Pinned {
    certs: Vec<CertificateDer<'static>>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if self.certs.iter().any(|c| c.as_ref() == end_entity.as_ref()) {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::UnknownIssuer,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// Where one exchange failed, and why.
enum Failure {
    Connect(String),
    Handshake(String),
    Write(String),
    Read(String),
    TimedOut,
}

/// Whether a failure's reason has been said (on stderr, once per run).
static SAID: AtomicBool = AtomicBool::new(false);

fn say_first(failure: &Failure) {
    let reason = match failure {
        Failure::Connect(e) => format!("connect: {e}"),
        Failure::Handshake(e) => format!("TLS handshake: {e}"),
        Failure::Write(e) => format!("write: {e}"),
        Failure::Read(e) => format!("read: {e}"),
        Failure::TimedOut => return,
    };
    if !SAID.swap(true, Ordering::Relaxed) {
        eprintln!("ws-load: first failure: {reason}");
    }
}

/// One connection's loop, from the window's start to its deadline.
pub async fn connection(plan: Arc<Plan>) -> Counts {
    let mut c = Counts::default();
    while Instant::now() < plan.deadline {
        c.sent += 1;
        c.bytes_sent += plan.request.len() as u64;
        let t0 = Instant::now();
        match exchange(&plan, t0 + plan.timeout).await {
            Ok(answer) => {
                let at = Instant::now();
                c.bytes_received += answer.len() as u64;
                if answer.starts_with(b"HTTP/1.1 200 ") {
                    c.counted(at, (at - t0).as_nanos() as u64);
                } else {
                    c.mismatched += 1;
                }
            }
            Err(failure) => {
                say_first(&failure);
                match failure {
                    Failure::Connect(_) => c.connect += 1,
                    Failure::Handshake(_) => c.handshake += 1,
                    Failure::Write(_) => c.write += 1,
                    Failure::Read(_) => c.read += 1,
                    Failure::TimedOut => c.timeouts += 1,
                }
            }
        }
    }
    c.deliveries = c.messages;
    c.finished = Some(Instant::now());
    c
}

/// Connect, shake hands, ask, read the answer whole; close from this side.
async fn exchange(plan: &Plan, until: Instant) -> Result<Vec<u8>, Failure> {
    let tcp = match timeout_at(until, TcpStream::connect(plan.addr)).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => return Err(Failure::Connect(e.to_string())),
        Err(_) => return Err(Failure::TimedOut),
    };
    let _ = tcp.set_nodelay(true);
    let connecting = plan.connector.connect(plan.server_name.clone(), tcp);
    let mut tls = match timeout_at(until, connecting).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => return Err(Failure::Handshake(e.to_string())),
        Err(_) => return Err(Failure::TimedOut),
    };
    match timeout_at(until, tls.write_all(&plan.request)).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(Failure::Write(e.to_string())),
        Err(_) => return Err(Failure::TimedOut),
    }
    let answer = match timeout_at(until, read_answer(&mut tls)).await {
        Ok(Ok(a)) => a,
        Ok(Err(e)) => return Err(Failure::Read(e.to_string())),
        Err(_) => return Err(Failure::TimedOut),
    };
    // close_notify, then the socket closes when `tls` drops: this side closes first.
    let _ = timeout_at(until, tls.shutdown()).await;
    Ok(answer)
}

/// The answer: its head and as many body bytes as its Content-Length says, or up to the end of
/// the stream when it names none.
async fn read_answer<S: AsyncReadExt + Unpin>(stream: &mut S) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(whole) = answer_length(&buf)
            && buf.len() >= whole
        {
            buf.truncate(whole);
            return Ok(buf);
        }
        let n = match stream.read(&mut chunk).await {
            Ok(n) => n,
            // A server that closes without close_notify, after its answer: the answer stands.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && head_end(&buf).is_some() => 0,
            Err(e) => return Err(e),
        };
        if n == 0 {
            return match head_end(&buf) {
                Some(_) => Ok(buf),
                None => Err(std::io::ErrorKind::UnexpectedEof.into()),
            };
        }
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() > MAX_ANSWER {
            return Err(std::io::Error::other("an answer over 1 MiB"));
        }
    }
}

/// Where the head ends (after its blank line), once it has.
fn head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// The whole answer's length, once its head is in and names a Content-Length.
fn answer_length(buf: &[u8]) -> Option<usize> {
    let end = head_end(buf)?;
    let head = std::str::from_utf8(&buf[..end]).ok()?;
    head.split("\r\n").find_map(|line| {
        let (name, value) = line.split_once(':')?;
        if name.trim().eq_ignore_ascii_case("content-length") {
            value.trim().parse::<usize>().ok().map(|n| end + n)
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths() {
        assert_eq!(answer_length(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"), None);
        let head = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n";
        assert_eq!(answer_length(head), Some(head.len() + 5));
        assert_eq!(answer_length(b"HTTP/1.1 200 OK\r\n\r\nabc"), None);
        assert_eq!(head_end(b"HTTP/1.1 200 OK\r\n\r\nabc"), Some(19));
    }

    #[tokio::test]
    async fn reads_to_the_length_or_the_end() {
        let mut whole: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA";
        let a = read_answer(&mut whole).await.unwrap();
        assert!(a.ends_with(b"\r\n\r\nok"));
        let mut open_ended: &[u8] = b"HTTP/1.1 200 OK\r\n\r\nuntil the end";
        assert!(read_answer(&mut open_ended).await.unwrap().ends_with(b"the end"));
        let mut cut: &[u8] = b"HTTP/1.1 200 OK\r\nContent-";
        assert!(read_answer(&mut cut).await.is_err());
    }
}
