// ./benchmark.sh --rates for real: open-loop trials after each closed-loop one, with the offered
// rate as asked, achieved ≤ offered, latency from when requests were due, the reports' tables.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { RATE_TOLERANCE } from "../src/analysis/rate-levels.ts";
import { type Results, schemaErrors } from "../src/results/schema.ts";
import {
  expectExit,
  hasOha,
  planned,
  runBenchmark,
  taggedProcesses,
} from "./support/run-benchmark.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("--rates", () => {
  // CI installs oha; elsewhere its absence skips this (visibly) rather than failing it.
  test.skipIf(!hasOha && process.env.CI !== "true")(
    "a share and an absolute rate per closed-loop trial, as asked and consistent",
    async () => {
      const out = join(temp("bench-rates-"), "run");
      dirs.push(out);
      const r = await runBenchmark([
        ...["-o", out, "-s", "api", "-d", "1", "-w", "0", "-n", "2", "--samples", "1", "-c", "32"],
        ...["--rates", "50%,2000,100000000", "--slo-p99", "25", "bun-bare"],
      ]);
      const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;
      expect(schemaErrors(results)).toEqual([]);
      expect(results.manifest.settings).toMatchObject({
        rates: ["50%", "2000", "100000000"],
        sloP99Ms: 25,
      });
      expect(results.manifest.rateTool?.name).toBe("oha");
      const rates = results.rateTrials ?? [];
      // The closed-loop req/s a share is of: only a valid trial's (an invalid one's req/s is
      // no measure of the app, and its share is skipped rather than guessed).
      const base = (round: number) => {
        const closed = results.trials.find((c) => c.round === round);
        const rps = closed?.checks.valid ? closed.result?.rps : undefined;
        return rps !== undefined && rps > 0 ? rps : undefined;
      };
      // Three rates after each of the two closed-loop trials, in the order asked; 50% only
      // after a valid one.
      expect(rates.map((t) => [t.round, t.requested])).toEqual(
        [1, 2].flatMap((round) =>
          ["50%", "2000", "100000000"]
            .filter((asked) => asked !== "50%" || base(round) !== undefined)
            .map((asked) => [round, asked]),
        ),
      );
      for (const t of rates) {
        // Half the closed loop's req/s, rounded, and at least 1 req/s.
        const expected =
          t.requested === "50%"
            ? Math.max(1, Math.round(0.5 * (base(t.round) ?? 0)))
            : Number(t.requested);
        expect(t.offeredRps).toBe(expected);
        expect(t.command).toContain("--latency-correction");
        expect(t.command[t.command.indexOf("-q") + 1]).toBe(String(expected));
        // Physical: no more answers than were offered (a little slack for the window's edges).
        expect(t.achievedRps).toBeLessThanOrEqual(t.offeredRps * 1.02);
        expect(t.overCapacity).toBe(t.achievedRps < t.offeredRps * (1 - RATE_TOLERANCE));
        expect(t.result?.latencyMs.p99 ?? 0).toBeLessThan(10_000);
      }
      // A hundred million req/s is beyond any server here: always over capacity.
      for (const t of rates.filter((x) => x.requested === "100000000")) {
        expect(t.overCapacity).toBe(true);
      }
      // Closed-loop trials are unchanged: one per round, not mixed with the rate trials.
      expect(planned(results.trials)).toHaveLength(2);
      const md = readFileSync(join(out, "report.md"), "utf8");
      expect(md).toContain("## Latency at offered load");
      // Over capacity, unless oha saturated before the server did: then the level is not judged.
      const huge = rates.filter((x) => x.requested === "100000000");
      const cell = huge.some((x) => x.loadGeneratorBound)
        ? "not judged: load generator saturated"
        : "over capacity";
      expect(md).toMatch(
        new RegExp(
          `\\| bun-bare \\| 100000000 \\| 100,000,000 \\| [\\d,]+ \\| [\\d.,]+ \\| [\\d.,]+(?: \\([\\d.,]+–[\\d.,]+\\))? \\| ${cell}(?: \\([\\d,]+ unsent\\))? \\|`,
        ),
      );
      expect(md).toContain("| app | capacity at the p99 budget | how it was found |");
      expect(r.stdout).toContain(
        "== api: capacity at p99 ≤ 25 ms (open loop, oha --latency-correction)",
      );
      const allValid = rates.every((t) => t.valid) && results.trials.every((t) => t.checks.valid);
      expect(r.code).toBe(allValid ? 0 : 1);
      expect(taggedProcesses()).toEqual([]);
    },
    120_000,
  );

  test("without oha: exit 2 before anything runs, saying why and how to install it", async () => {
    const path = (process.env.PATH ?? "")
      .split(":")
      .filter((d) => !existsSync(join(d, "oha")))
      .join(":");
    const out = join(temp("bench-rates-"), "run");
    dirs.push(out);
    const r = await runBenchmark(["-o", out, "--rates", "50%", "bun-bare"], {
      PATH: path,
      HOME: temp("home-"),
    });
    expectExit(r, 2);
    expect(r.stderr).toContain("--rates needs oha (wrk and autocannon measure latency from when");
    expect(r.stderr).toContain("cargo install --locked oha");
    expect(existsSync(join(out, "results.json"))).toBe(false);
  });

  test.each([
    ["5k", "--rates must be 'search' or list rates"],
    ["50%,,", "--rates must be 'search' or list rates"],
  ])("--rates %j: usage, exit 2", async (rates, message) => {
    const r = await runBenchmark(["--rates", rates, "bun-bare"]);
    expectExit(r, 2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain("Run './benchmark.sh --help' for the flags.");
  });
});
