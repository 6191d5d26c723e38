// report/cli.ts's --report: the reports regenerated from a results.json alone, as the run left it.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../src/report/cli.ts";
import type { Results } from "../src/results/schema.ts";
import { syntheticRun, syntheticTrial } from "./support/synthetic.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A run of 20 planned rounds that measured two before it ended `status`, in a folder of its own. */
function cutShort(status: Results["status"]): string {
  const trials = [1, 2].flatMap((round) => [
    syntheticTrial("bun-bare", "api", round, 64, 1000 + round, 4),
    syntheticTrial("node-bare", "api", round, 64, 500 + round, 4),
  ]);
  const results = {
    ...syntheticRun(["bun-bare", "node-bare"], ["api"], trials, { trials: 20 }),
    status,
  };
  const dir = mkdtempSync(join(tmpdir(), "bench-cli-"));
  dirs.push(dir);
  writeFileSync(join(dir, "results.json"), JSON.stringify(results));
  return dir;
}

function report(dir: string): { code: number; err: string[]; summary: string; md: string } {
  const err: string[] = [];
  const code = runCli(["report", join(dir, "results.json")], {
    out: () => {},
    err: (l) => err.push(l),
  });
  const read = (file: string) => readFileSync(join(dir, file), "utf8");
  return { code, err, summary: read("summary.txt"), md: read("report.md") };
}

const dateRow = (md: string) => /^\| Date \| (.*) \|$/m.exec(md)?.[1];
const roundsOf = (text: string) => /\d+(?: of \d+ planned)? processes/.exec(text)?.[0];

describe("--report on a run that did not complete", () => {
  test("killed (results.json still 'running'): INTERRUPTED, the rounds measured, the file untouched", () => {
    const dir = cutShort("running");
    const before = readFileSync(join(dir, "results.json"), "utf8");
    const r = report(dir);
    expect(r.code).toBe(0);
    expect(r.err).toEqual([
      `report: ${join(dir, "results.json")} was never closed (its run was killed): reported as interrupted`,
    ]);
    expect(r.summary.split("\n")[2]).toBe("INTERRUPTED: only the samples that finished are shown");
    expect(roundsOf(r.summary)).toBe("2 of 20 planned processes");
    expect(dateRow(r.md)).toBe("2026-11-22 12:00 UTC (interrupted)");
    expect(roundsOf(r.md)).toBe("2 of 20 planned processes");
    expect(readFileSync(join(dir, "results.json"), "utf8")).toBe(before);
  });

  test("interrupted (Ctrl-C): the same header, no note about the file", () => {
    const r = report(cutShort("interrupted"));
    expect(r.err).toEqual([]);
    expect(r.summary.split("\n")[2]).toBe("INTERRUPTED: only the samples that finished are shown");
    expect(roundsOf(r.summary)).toBe("2 of 20 planned processes");
  });

  test("complete: the planned rounds, no INTERRUPTED", () => {
    const r = report(cutShort("complete"));
    expect(r.summary).not.toContain("INTERRUPTED");
    expect(roundsOf(r.summary)).toBe("20 processes");
    expect(dateRow(r.md)).toBe("2026-11-22 12:00 UTC (complete)");
  });
});
