// The hostile-input survival check: thousands of bad requests of every kind the contract
// defines, plus raw garbage that is not HTTP at all; the server must answer each with a 4xx
// (or close a garbage connection) and still serve normally afterwards.

import { connect } from "node:net";
import { GREETING, ROUTES, userPath } from "../spec/endpoints.ts";
import { CASES, type ContractCase } from "./cases.ts";
import { describeError } from "./payloads.ts";

export interface HostileReport {
  readonly sent: number;
  /** Answers per status code. */
  readonly statuses: Readonly<Record<string, number>>;
  /** 5xx answers: the server failed on input it should have refused. */
  readonly serverErrors: number;
  /** 1xx–3xx answers: the server accepted input it should have refused with a 4xx. */
  readonly accepted: number;
  /** Requests that got no HTTP answer at all (reset, refused, timed out). */
  readonly failures: number;
  readonly firstFailure?: string;
  /** GET / still answered the greeting afterwards. */
  readonly aliveAfter: boolean;
}

export interface HostileOptions {
  readonly count?: number;
  readonly concurrency?: number;
  readonly timeoutMs?: number;
}

type Attack =
  | { readonly kind: "http"; readonly testCase: ContractCase; readonly heavy: boolean }
  | { readonly kind: "raw" };

/** Bad requests beyond the contract's cases; what a conforming app answers them, as a case. */
export const EXTRA_ATTACKS: readonly ContractCase[] = [
  {
    name: "binary garbage as JSON",
    bad: true,
    request: {
      method: "POST",
      path: ROUTES.echo,
      headers: { "content-type": "application/json" },
      body: "\u0000\u00ff\ufffe{\u0001",
    },
    expect: { status: 400, mediaType: "application/json" },
  },
  {
    name: "a broken percent-encoding in the path",
    bad: true,
    request: { method: "GET", path: "/api/%E0%A4%A/%%zz" },
    expect: { status: 404, mediaType: "application/json" },
  },
];

/** Bodies this large go in once per HEAVY_EVERY rounds, so 10,000 requests stay a few seconds. */
const HEAVY_BYTES = 64 * 1024;
const HEAVY_EVERY = 10;

function attacks(): Attack[] {
  const light: Attack[] = [{ kind: "raw" }];
  const heavy: Attack[] = [];
  for (const testCase of [...CASES.filter((c) => c.bad), ...EXTRA_ATTACKS]) {
    const size = testCase.request.body?.length ?? 0;
    const isHeavy = size > HEAVY_BYTES;
    (isHeavy ? heavy : light).push({ kind: "http", testCase, heavy: isHeavy });
  }
  const rounds = Array.from({ length: HEAVY_EVERY }, () => light).flat();
  return [...rounds, ...heavy];
}

/** Not HTTP at all: the server should answer 400 or hang up, and nothing else. */
function sendGarbage(host: string, port: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(`garbage connection neither answered nor closed in ${timeoutMs} ms`);
    }, timeoutMs);
    socket.on("connect", () => socket.end("\u0016\u0003\u0001 NOT HTTP \r\n\r\n\u0000\u0000"));
    socket.on("data", () => {});
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(undefined);
    };
    socket.on("close", done);
    socket.on("error", done);
  });
}

/** The server refused every bad request with a 4xx and still served afterwards. */
export function survived(report: HostileReport): boolean {
  return (
    report.aliveAfter && report.serverErrors === 0 && report.accepted === 0 && report.failures === 0
  );
}

export async function hostile(
  baseUrl: string,
  options: HostileOptions = {},
): Promise<HostileReport> {
  const count = options.count ?? 10_000;
  const concurrency = options.concurrency ?? 16;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const url = new URL(baseUrl);
  const list = attacks();
  const statuses: Record<string, number> = {};
  let serverErrors = 0;
  let accepted = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  let next = 0;

  const fail = (what: string) => {
    failures++;
    firstFailure ??= what;
  };

  const worker = async () => {
    while (next < count) {
      const attack = list[next++ % list.length] as Attack;
      if (attack.kind === "raw") {
        const problem = await sendGarbage(url.hostname, Number(url.port), timeoutMs);
        if (problem) fail(problem);
        continue;
      }
      const { method, path, headers, body } = attack.testCase.request;
      try {
        const response = await fetch(new URL(path, url.origin), {
          method,
          headers,
          body,
          redirect: "manual",
          signal: AbortSignal.timeout(timeoutMs),
          // An over-limit body is answered before it is read, on a connection the server then
          // closes; under Bun, keepalive: false keeps that connection out of the pool the
          // other requests share, so a reset there is charged to the request that caused it.
          keepalive: !attack.heavy,
        });
        await response.arrayBuffer();
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        if (response.status >= 500) serverErrors++;
        if (response.status < 400) accepted++;
        if (response.status >= 500 || response.status < 400) {
          firstFailure ??= `${attack.testCase.name}: status ${response.status}`;
        }
      } catch (error) {
        fail(`${attack.testCase.name}: ${describeError(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));

  let aliveAfter = false;
  try {
    const response = await fetch(new URL(ROUTES.root, url.origin), {
      signal: AbortSignal.timeout(timeoutMs),
    });
    aliveAfter = response.status === 200 && (await response.text()) === GREETING;
  } catch {
    aliveAfter = false;
  }
  return { sent: count, statuses, serverErrors, accepted, failures, firstFailure, aliveAfter };
}

/**
 * Clients that leave mid-body: on every POST route, a body that declares 1,000 bytes and sends
 * 6, and a chunked body cut inside a chunk, each connection closed after 100 ms. The server
 * must take it quietly (the conformance test reads its log: bun-elysia printed a 30-line
 * DOMException, the Deno apps BadResource stack traces, the Node apps "Error: aborted").
 */
export async function abandonBodies(host: string, port: number): Promise<void> {
  const heads = [
    "Content-Length: 1000\r\n\r\n" + '{"a":1',
    "Transfer-Encoding: chunked\r\n\r\n" + '5\r\n{"a":',
  ];
  for (const path of [ROUTES.echo, userPath(42)]) {
    for (const rest of heads) {
      await new Promise<void>((done) => {
        const socket = connect({ host, port });
        socket.on("connect", () => {
          socket.write(
            `POST ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Type: application/json\r\n${rest}`,
          );
          setTimeout(() => socket.destroy(), 100);
        });
        socket.on("error", () => done());
        socket.on("close", () => done());
      });
    }
  }
}
