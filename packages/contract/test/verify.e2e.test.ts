// The runtime identity check on bun-bare's own port (3004): a process that is not Bun holds it
// while the server under test runs elsewhere. It binds a fixed port, so it is an end-to-end
// test, apart from verify.test.ts's in-process ones (npm run test:unit runs those alone).
import { afterEach, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { checkServingExecutable, pidsListeningOn, verify } from "../src/check.ts";
import { getApp } from "../src/index.ts";
import { referenceServe } from "./support/reference-server.ts";

let server: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => {
  server?.stop(true);
  server = undefined;
});

const run = async (s: ReturnType<typeof Bun.serve>) => {
  server = s;
  return verify(`http://127.0.0.1:${s.port}`, "bun-bare", { timeoutMs: 2000 });
};

/** The reference server on a free port. */
const conforming = () => referenceServe("bare", 0);

describe("the runtime identity check of the registry port", () => {
  // A process that is not Bun holds bun-bare's port while the server under test runs
  // elsewhere: only the app on the registry port may be judged by that port's executable.
  test("is skipped for a server on another port", async () => {
    const port = getApp("bun-bare").port;
    const holder = spawn("python3", ["-m", "http.server", String(port), "--bind", "127.0.0.1"], {
      stdio: "ignore",
    });
    try {
      for (let i = 0; i < 100 && pidsListeningOn(port).length === 0; i++) await Bun.sleep(50);
      expect(pidsListeningOn(port)).toEqual([holder.pid as number]);
      expect(await run(conforming())).toEqual([]);
      // ...and the same check does judge whatever holds the registry port
      expect(checkServingExecutable(getApp("bun-bare"))[0]?.detail).toContain("must run on bun");
    } finally {
      holder.kill("SIGKILL");
      await new Promise((done) => holder.once("exit", done));
    }
  });
});
