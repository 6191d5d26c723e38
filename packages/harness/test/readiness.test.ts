// Readiness and the server's processes (src/apps/readiness.ts), without starting any app: stand-in
// servers (Bun.serve, Bun.listen) on 127.0.0.1 port 0 of this very process, ports nobody
// listens on, and made-up process tables for the /proc look-ups. Short timeouts throughout;
// nothing asserts how long anything took.

import { afterAll, describe, expect, test } from "bun:test";
import { type AppSpec, GREETING, getApp } from "@bench/contract";
import {
  execAt,
  listenerOf,
  type ProcessTable,
  portHolder,
  serverProcesses,
  waitForReady,
} from "../src/apps/readiness.ts";

const stops: (() => void)[] = [];
afterAll(() => {
  for (const stop of stops) stop();
});

/** An HTTP stand-in answering every request with this status and body; its port. */
function answering(status: number, body: string): number {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) =>
      new URL(request.url).pathname === "/"
        ? new Response(body, { status })
        : new Response("wrong path", { status: 404 }),
  });
  stops.push(() => server.stop(true));
  return server.port as number;
}

/** A TCP stand-in that accepts connections and never says anything; its port, and closes seen. */
function silent(): { port: number; closed: Promise<void> } {
  let closedOne = () => {};
  const closed = new Promise<void>((done) => {
    closedOne = done;
  });
  const listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: { data() {}, close: () => closedOne() },
  });
  stops.push(() => listener.stop(true));
  return { port: listener.port, closed };
}

/** A port that was just free: listened on, then closed again. */
function freePort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

/** A made-up machine: who listens on which port, and each process's parent. */
function table(listening: Record<number, number[]>, parents: Record<number, number>): ProcessTable {
  const childrenOf = (pid: number) =>
    Object.entries(parents)
      .filter(([, parent]) => parent === pid)
      .map(([child]) => Number(child));
  const descendants = (pid: number): number[] =>
    childrenOf(pid).flatMap((child) => [child, ...descendants(child)]);
  return {
    listeners: (port) => listening[port] ?? [],
    descendants,
    parent: (pid) => parents[pid],
    commandLine: (pid) => (pid === 101 ? "bun run start" : undefined),
  };
}

const never = () => false;
const always = () => true;
const app = (port: number): AppSpec => ({ ...getApp("bun-bare"), port });

describe("the first answer to GET /", () => {
  test("200 with the greeting: correct, stamped when it came", async () => {
    const port = answering(200, GREETING);
    const before = performance.now();
    const ready = await waitForReady(port, never, 2000, always);
    const after = performance.now();
    expect(ready?.correct).toBe(true);
    expect(ready?.at).toBeGreaterThanOrEqual(before);
    expect(ready?.at).toBeLessThanOrEqual(after);
  });

  test("any other answer is an answer too, but not the right one", async () => {
    const wrongBody = await waitForReady(answering(200, "Hello"), never, 2000, always);
    expect(wrongBody?.correct).toBe(false);
    const wrongStatus = await waitForReady(answering(500, GREETING), never, 2000, always);
    expect(wrongStatus?.correct).toBe(false);
    const wrongBoth = await waitForReady(answering(503, ""), never, 2000, always);
    expect(wrongBoth?.correct).toBe(false);
  });

  test("refused connections are asked again until the app listens", async () => {
    const port = freePort();
    let looks = 0;
    // The app "comes up" at the third look: the first two asks are refused.
    const exited = () => {
      if (++looks === 3) startOn(port);
      return false;
    };
    const ready = await waitForReady(port, exited, 5000, always);
    expect(looks).toBe(3);
    expect(ready?.correct).toBe(true);
  }, 3000);

  test("no answer at all within the timeout: undefined", async () => {
    expect(await waitForReady(freePort(), never, 50, always)).toBeUndefined();
  }, 3000);

  test("a server that accepts and never answers: each ask gives up, then the wait does", async () => {
    const { port } = silent();
    expect(await waitForReady(port, never, 100, always, 20)).toBeUndefined();
  }, 3000);

  test("an app that has exited is not asked, even if something answers on its port", async () => {
    const port = answering(200, GREETING);
    expect(await waitForReady(port, always, 2000, always)).toBeUndefined();
  }, 3000);

  test("the app exiting while it is waited for ends the wait", async () => {
    let looks = 0;
    const exitsAtThird = () => ++looks >= 3;
    expect(await waitForReady(freePort(), exitsAtThird, 60_000, always)).toBeUndefined();
    expect(looks).toBe(3);
  }, 3000);

  test("nothing is asked until every worker is up; then the answer counts", async () => {
    const port = answering(200, GREETING);
    let checks = 0;
    const upAtFourth = () => ++checks >= 4;
    const ready = await waitForReady(port, never, 2000, upAtFourth);
    expect(ready?.correct).toBe(true);
    expect(checks).toBe(4);
    // "All up" comes from the app's output, an event: while it waits, the wait must give
    // events their turn (a loop of bare awaits would starve them and time out).
    let printed = false;
    setTimeout(() => {
      printed = true;
    }, 5);
    expect((await waitForReady(port, never, 2000, () => printed))?.correct).toBe(true);
    // Workers never all up: no answer is taken, though the port answers.
    expect(await waitForReady(port, never, 50, () => false)).toBeUndefined();
  }, 3000);
});

/** Starts the greeting stand-in on a given port (the app "coming up" mid-wait). */
function startOn(port: number): void {
  const server = Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response(GREETING) });
  stops.push(() => server.stop(true));
}

describe("when the runtime was exec'd", () => {
  // Spawned at 1000 ms on performance.now()'s clock, when the wall clock read 1.7e12 ms.
  const spawned = { at: 1000, wall: 1_700_000_000_000 };

  test("the stamp, moved onto performance.now()'s clock through the spawn's wall time", () => {
    // 1700000000.25 s is 250 ms of wall time after the spawn: 1000 + 250.
    expect(execAt("1700000000.25\n", spawned, 2000)).toBe(1250);
    expect(execAt("1700000000.5", spawned, undefined)).toBe(1500);
  });

  test("bash's decimal comma (some locales) reads as a point", () => {
    expect(execAt("1700000000,75\n", spawned, 2000)).toBe(1750);
  });

  test("kept within [spawn, ready]: a stamp before the spawn or after the answer is clamped", () => {
    // 1 s of wall time before the spawn (a clock step): the spawn, 1000.
    expect(execAt("1699999999", spawned, 2000)).toBe(1000);
    // 5 s after the spawn, but the answer came at 2000: 2000.
    expect(execAt("1700000005", spawned, 2000)).toBe(2000);
    // With no answer there is no upper bound: 1000 + 5000.
    expect(execAt("1700000005", spawned, undefined)).toBe(6000);
  });

  test("no stamp, an empty one or a garbled one: the spawn", () => {
    expect(execAt(undefined, spawned, 2000)).toBe(1000);
    // Empty: Number("") would be 0, the epoch, far before the spawn; with no answer to bound
    // it, only the emptiness check keeps it from being taken as a time.
    expect(execAt("", spawned, undefined)).toBe(1000);
    expect(execAt("  \n", spawned, undefined)).toBe(1000);
    expect(execAt("17000x", spawned, undefined)).toBe(1000);
    expect(execAt("1.7.0", spawned, 2000)).toBe(1000);
  });
});

describe("who holds a port", () => {
  test("every listener /proc names, with its command line when it can be read", async () => {
    const proc = table({ 4000: [101, 202] }, {});
    expect(await portHolder(4000, proc)).toBe("pid 101 (bun run start), pid 202 (unknown command)");
  });

  test("a listener /proc does not show, found by connecting (and disconnecting)", async () => {
    const { port, closed } = silent();
    expect(await portHolder(port, table({}, {}))).toBe("an unknown process");
    await closed; // the test's timeout fails it if the probe's connection stays open
  }, 2000);

  test("at an address: only the listeners that take its connections are asked about", async () => {
    const asked: (string | undefined)[] = [];
    const proc = {
      ...table({}, {}),
      listeners: (_port: number, address?: string) => {
        asked.push(address);
        return address === "127.0.0.1" ? [101] : [];
      },
    };
    expect(await portHolder(4000, proc)).toBe("pid 101 (bun run start)");
    expect(await portHolder(freePort(), proc, "127.0.0.2")).toBeUndefined();
    expect(asked).toEqual(["127.0.0.1", "127.0.0.2"]);
  });

  test("a free port: nobody", async () => {
    expect(await portHolder(freePort(), table({}, {}))).toBeUndefined();
  });

  // The one look at the real /proc (slow on a machine with thousands of sockets in its tables).
  test("this very process, through the real /proc", async () => {
    const { port } = silent();
    const holder = await portHolder(port);
    expect(holder).toStartWith(`pid ${process.pid} (`);
    expect(holder).toEndWith(")");
    expect(holder).not.toContain("unknown command");
  });
});

describe("the server's processes", () => {
  test("the listener, the first of several; else the process launched", () => {
    expect(listenerOf(app(4000), 42, table({ 4000: [7, 9] }, {}))).toBe(7);
    expect(listenerOf(app(4000), 42, table({ 4001: [7] }, {}))).toBe(42);
  });

  test("the launched process's own listener first: two of one app on one port (side by side)", () => {
    // 9 runs under 42 (launched), 7 belongs to the other slot's app.
    expect(listenerOf(app(4000), 42, table({ 4000: [7, 9] }, { 9: 42 }))).toBe(9);
    expect(listenerOf(app(4000), 9, table({ 4000: [7, 9] }, {}))).toBe(9);
  });

  test("one process: the listener alone, whatever runs under it", () => {
    const proc = table({ 4000: [20] }, { 20: 10, 21: 20 });
    expect(serverProcesses(app(4000), 10, 1, proc)).toEqual({ root: 20, workers: [] });
    expect(serverProcesses(app(4000), 10, 1, table({}, {}))).toEqual({ root: 10, workers: [] });
  });

  test("Node's cluster: the primary listens, its children are the workers", () => {
    // bun run (10) → primary (20, listening) → workers 21, 22.
    const proc = table({ 4000: [20] }, { 20: 10, 21: 20, 22: 20 });
    expect(serverProcesses(app(4000), 10, 2, proc)).toEqual({ root: 20, workers: [21, 22] });
  });

  test("Bun's cluster: every worker listens; their parent is the primary", () => {
    // bun run (10) → primary (20) → workers 21, 22, each listening (reusePort).
    const proc = table({ 4000: [21, 22] }, { 20: 10, 21: 20, 22: 20 });
    expect(serverProcesses(app(4000), 10, 2, proc)).toEqual({ root: 20, workers: [21, 22] });
  });

  test("not as many workers as asked for: why, naming the count found and where", () => {
    const proc = table({ 4000: [20] }, { 20: 10, 21: 20, 22: 20, 23: 20 });
    expect(serverProcesses(app(4000), 10, 2, proc)).toBe(
      "asked for 2 workers, found 3 under pid 20",
    );
    // A listening worker whose primary is gone (no parent to be found): itself, with none.
    expect(serverProcesses(app(4000), 10, 2, table({ 4000: [21] }, {}))).toBe(
      "asked for 2 workers, found 0 under pid 21",
    );
  });
});
