//! ws-load: a WebSocket load generator for runtime-bench (README.md beside Cargo.toml).
//! Exit status: 0 it ran, 1 no connection could be opened, 2 bad arguments.

mod args;
mod broadcast;
mod conn;
mod echo;
mod handshake;
mod payload;
mod report;
mod stats;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use args::{Args, Mode, Parsed};
use conn::{OpenError, Ws};
use stats::Counts;

/// The most the end waits for the server's close frame.
const CLOSE_GRACE: Duration = Duration::from_secs(1);

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match args::parse(&argv) {
        Ok(Parsed::Run(a)) => a,
        Ok(Parsed::Help) => {
            println!("{}\n\n{}", args::HELP, args::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Version) => {
            println!("ws-load {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(reason) => {
            eprintln!("ws-load: {reason}\n{}", args::USAGE);
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ws-load: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let result = runtime.block_on(async {
        match args.mode {
            Mode::Echo => run_echo(&args).await,
            Mode::Broadcast => run_broadcast(&args).await,
            Mode::Handshake => run_handshake(&args).await,
        }
    });
    // Every task has ended (all were awaited): nothing left to wait for.
    runtime.shutdown_background();
    match result {
        Ok(run) => {
            let latency = stats::merged();
            println!("{}", report::json(&args, &run, &latency));
            eprintln!(
                "ws-load: {} messages in {:.3} s ({:.0}/s), {} deliveries, {} mismatched, {} timeouts",
                run.counts.messages,
                run.duration.as_secs_f64(),
                run.counts.messages as f64 / run.duration.as_secs_f64().max(1e-9),
                run.counts.deliveries,
                run.counts.mismatched,
                run.counts.timeouts
            );
            ExitCode::SUCCESS
        }
        Err(reason) => {
            eprintln!("ws-load: {reason}");
            ExitCode::from(1)
        }
    }
}

fn grace(args: &Args) -> Duration {
    args.timeout.min(CLOSE_GRACE)
}

/// The connections that opened, the failures counted by kind, and the first failure's reason.
struct Opened {
    open: Vec<Ws>,
    connect_errors: u64,
    handshake_errors: u64,
    first_error: Option<String>,
}

async fn open(args: &Args, n: usize) -> Opened {
    let began = Instant::now();
    eprintln!("ws-load: opening {n} connections to {}", args.target.url);
    let mut o = Opened {
        open: Vec::with_capacity(n),
        connect_errors: 0,
        handshake_errors: 0,
        first_error: None,
    };
    for r in conn::open_all(&args.target, n, args.size, args.timeout).await {
        match r {
            Ok(ws) => o.open.push(ws),
            Err(e) => {
                match e {
                    OpenError::Connect(_) => o.connect_errors += 1,
                    OpenError::Handshake(_) => o.handshake_errors += 1,
                }
                if o.first_error.is_none() {
                    o.first_error = Some(e.to_string());
                }
            }
        }
    }
    eprintln!(
        "ws-load: {} of {n} open in {:.3} s{}",
        o.open.len(),
        began.elapsed().as_secs_f64(),
        match &o.first_error {
            Some(e) => format!(" (first failure: {e})"),
            None => String::new(),
        }
    );
    o
}

fn duration(start: Instant, c: &Counts) -> Duration {
    c.last_counted
        .or(c.finished)
        .map(|t| t.saturating_duration_since(start))
        .unwrap_or_default()
}

async fn run_echo(args: &Args) -> Result<report::Run, String> {
    let opened = open(args, args.connections).await;
    if opened.open.is_empty() {
        return Err(format!(
            "no connection could be opened: {}",
            opened.first_error.unwrap_or_default()
        ));
    }
    let connected = opened.open.len();
    eprintln!("ws-load: echo for {:?}", args.duration);
    let start = Instant::now();
    let plan = Arc::new(echo::Plan {
        deadline: start + args.duration,
        size: args.size,
        binary: args.binary,
        timeout: args.timeout,
        grace: grace(args),
    });
    let tasks: Vec<_> = (opened.open.into_iter().enumerate())
        .map(|(i, ws)| tokio::spawn(echo::connection(ws, i as u64, plan.clone())))
        .collect();
    let mut counts = Counts::default();
    for t in tasks {
        match t.await {
            Ok(c) => counts.add(&c),
            Err(e) => eprintln!("ws-load: a connection's task failed: {e}"),
        }
    }
    Ok(report::Run {
        connected,
        connect_errors: opened.connect_errors,
        handshake_errors: opened.handshake_errors,
        duration: duration(start, &counts),
        warm_up: None,
        counts,
    })
}

async fn run_handshake(args: &Args) -> Result<report::Run, String> {
    let ca = args.ca.as_deref().ok_or("handshake needs --ca")?;
    eprintln!(
        "ws-load: a new TLS connection per request to {}, {} at once, for {:?}",
        args.target.url, args.connections, args.duration
    );
    let start = Instant::now();
    let plan = handshake::Plan::new(&args.target, ca, start + args.duration, args.timeout)?;
    let plan = Arc::new(plan);
    let tasks: Vec<_> = (0..args.connections)
        .map(|_| tokio::spawn(handshake::connection(plan.clone())))
        .collect();
    let mut counts = Counts::default();
    let mut connected = 0;
    for t in tasks {
        match t.await {
            Ok(c) => {
                connected += usize::from(c.messages + c.mismatched > 0);
                counts.add(&c);
            }
            Err(e) => eprintln!("ws-load: a connection's task failed: {e}"),
        }
    }
    if connected == 0 {
        return Err(format!(
            "no request was answered: {} connect, {} TLS handshake, {} read, {} write failures, {} time-outs",
            counts.connect, counts.handshake, counts.read, counts.write, counts.timeouts
        ));
    }
    Ok(report::Run {
        connected,
        connect_errors: counts.connect,
        handshake_errors: counts.handshake,
        duration: duration(start, &counts),
        warm_up: None,
        counts,
    })
}

async fn run_broadcast(args: &Args) -> Result<report::Run, String> {
    // C subscribers and one publisher, all opened before anything is sent.
    let mut opened = open(args, args.connections + 1).await;
    let Some(publisher_ws) = opened.open.pop() else {
        return Err(format!(
            "no connection could be opened: {}",
            opened.first_error.unwrap_or_default()
        ));
    };
    let subscribers = opened.open.len();
    if subscribers == 0 {
        return Err(format!(
            "only the publisher's connection opened, no subscriber's: {}",
            opened.first_error.unwrap_or_default()
        ));
    }
    let (shared, done) = broadcast::Shared::new(subscribers, args.in_flight, args.size);
    let (stop, stop_rx) = watch::channel(false);
    let subs: Vec<_> = opened
        .open
        .into_iter()
        .map(|ws| {
            tokio::spawn(broadcast::subscriber(
                ws,
                shared.clone(),
                stop_rx.clone(),
                grace(args),
            ))
        })
        .collect();
    eprintln!(
        "ws-load: broadcast to {subscribers} subscribers for {:?}, {} in flight",
        args.duration, args.in_flight
    );
    let plan = broadcast::Plan {
        duration: args.duration,
        in_flight: args.in_flight,
        timeout: args.timeout,
        grace: grace(args),
    };
    let published = tokio::spawn(broadcast::publisher(
        publisher_ws,
        shared.clone(),
        done,
        plan,
    ))
    .await
    .map_err(|e| format!("the publisher's task failed: {e}"))?;
    let _ = stop.send(true);
    let publisher_finished = published.counts.finished;
    let mut counts = published.counts;
    for t in subs {
        match t.await {
            Ok(c) => counts.add(&c),
            Err(e) => eprintln!("ws-load: a subscriber's task failed: {e}"),
        }
    }
    // The window ends at the last completed message, or (none) when the publisher stopped.
    let end = Counts {
        last_counted: counts.last_counted,
        finished: publisher_finished,
        ..Counts::default()
    };
    Ok(report::Run {
        connected: subscribers,
        connect_errors: opened.connect_errors,
        handshake_errors: opened.handshake_errors,
        duration: duration(published.start, &end),
        warm_up: Some((published.warm_up, published.warm_up_messages)),
        counts,
    })
}
