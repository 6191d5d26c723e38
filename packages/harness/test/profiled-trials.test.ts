// profiles/profiled-trials.ts without starting anything: an app whose runtime has no profiler.
// Reading the profiles themselves is in cpuprofile.test.ts; real --profile runs in
// profile.e2e.test.ts.
import { expect, test } from "bun:test";
import { type AppSpec, findScenario, getApp, type Scenario } from "@bench/contract";
import { profileTrial } from "../src/profiles/profiled-trials.ts";

test("an app whose runtime has no profiler gets a record saying so, not silence", async () => {
  const app = { ...getApp("bun-bare"), runtime: "workerd" } as unknown as AppSpec;
  const scenario = findScenario("api") as Scenario;
  const never = () => {
    throw new Error("nothing may be started or measured");
  };
  const record = await profileTrial(
    {
      outDir: "/nonexistent",
      host: { start: never, target: never, sample: never, scratchPath: never, collect: never },
      startOptions: { root: "/nonexistent" },
      apps: [app],
      scenarios: [scenario],
      warmupSec: 0,
      durationSec: 1,
      load: never,
      serverTree: never,
      record: never,
      failed: never,
      fail: never,
      interrupted: never,
      log: never,
    },
    app,
    scenario,
  );
  expect(record).toMatchObject({
    app: "bun-bare",
    scenario: "api",
    unavailable: "workerd has no CPU profiler this harness can run",
  });
  expect(record.file).toBeUndefined();
});
