// How long each of N connections opened at once waits for its first answer, on raw sockets
// (closed loop: one request in flight per connection, the next sent on each answer). Load
// generators report latency per request; this reports it per connection, which shows a server
// that serves some connections and leaves the rest waiting (docs/findings.md, "What we learned").
//
//   bun packages/harness/src/apps/first-response.ts PORT PATH [BODY_FILE] [SECONDS=5] [CONNECTIONS=400]
//
// Prints one JSON line: answers, connections that got none, and the first-answer times (ms
// since the start) at the median, the 90th percentile and the slowest. 127.0.0.1 only.

interface Connection {
  first: number;
  answers: number;
}

function request(path: string, body: string): string {
  const head = body
    ? `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`
    : `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
  return head + body;
}

/** Complete responses at the start of `buffer` (Content-Length framed), and what is left. */
export function takeResponses(buffer: string): { count: number; rest: string } {
  let rest = buffer;
  let count = 0;
  for (;;) {
    const end = rest.indexOf("\r\n\r\n");
    if (end < 0) break;
    const length = Number(/content-length: *(\d+)/i.exec(rest.slice(0, end))?.[1] ?? 0);
    if (rest.length < end + 4 + length) break;
    rest = rest.slice(end + 4 + length);
    count++;
  }
  return { count, rest };
}

export async function firstResponses(
  port: number,
  path: string,
  body: string,
  seconds: number,
  connections: number,
) {
  const wire = request(path, body);
  const start = performance.now();
  const stats: Connection[] = [];
  let stopped = false;
  const sockets = await Promise.all(
    Array.from({ length: connections }, () => {
      const c: Connection = { first: -1, answers: 0 };
      stats.push(c);
      // latin1: one character per byte, so Content-Length can be compared with lengths
      let buffer = "";
      return Bun.connect({
        hostname: "127.0.0.1",
        port,
        socket: {
          open: (socket) => void socket.write(wire),
          data: (socket, data) => {
            const taken = takeResponses(buffer + data.toString("latin1"));
            buffer = taken.rest;
            if (taken.count === 0) return;
            if (c.first < 0) c.first = performance.now() - start;
            c.answers += taken.count;
            if (!stopped) socket.write(wire);
          },
        },
      });
    }),
  );
  await Bun.sleep(seconds * 1000);
  stopped = true;
  for (const socket of sockets) socket.end();
  const firsts = stats.map((c) => (c.first < 0 ? Number.POSITIVE_INFINITY : c.first));
  firsts.sort((a, b) => a - b);
  const at = (q: number) => firsts[Math.min(firsts.length - 1, Math.floor(q * firsts.length))];
  const ms = (v: number | undefined) =>
    v === undefined || !Number.isFinite(v) ? null : Math.round(v);
  return {
    answers: stats.reduce((sum, c) => sum + c.answers, 0),
    unanswered: stats.filter((c) => c.answers === 0).length,
    firstMsP50: ms(at(0.5)),
    firstMsP90: ms(at(0.9)),
    firstMsMax: ms(firsts[firsts.length - 1]),
  };
}

if (import.meta.main) {
  const [port, path, bodyFile, seconds, connections] = process.argv.slice(2);
  if (!port || !path) {
    console.error(
      "usage: bun packages/harness/src/apps/first-response.ts PORT PATH [BODY_FILE] [SECONDS] [CONNECTIONS]",
    );
    process.exit(2);
  }
  const body = bodyFile ? await Bun.file(bodyFile).text() : "";
  const report = await firstResponses(
    Number(port),
    path,
    body,
    Number(seconds ?? 5),
    Number(connections ?? 400),
  );
  console.log(JSON.stringify(report));
  process.exit(0);
}
