// ./benchmark.sh history (report/history-cli.ts), in-process: its command line, importing
// earlier runs, --json, --check's exit status and the refusals, on histories in a temporary
// folder made from synthetic runs.

import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  HISTORY_USAGE,
  notASession,
  parseHistoryArgs,
  resultsFiles,
  runHistoryCli,
} from "../src/report/history-cli.ts";
import type { Results, Trial } from "../src/results/schema.ts";
import { syntheticRun, syntheticTrial } from "./support/synthetic.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
}

/** A complete run of bun-bare at `level` × 100k req/s, 3 processes, at hour `hour`. */
function run(hour: number, level = 1): Results {
  const trials: Trial[] = [1, 2, 3].map((round) =>
    syntheticTrial("bun-bare", "api", round, 64, level * (100_000 + round * 1000), 4),
  );
  const r = syntheticRun(["bun-bare"], ["api"], trials);
  return {
    ...r,
    startedAt: new Date(Date.UTC(2026, 10, 28, hour)).toISOString(),
    manifest: { ...r.manifest, machine: { ...r.manifest.machine, virtualization: "kvm" } },
  };
}

/** A folder of run folders, one results.json each. */
function runs(list: Results[]): string {
  const root = temp("bench-history-cmd-");
  list.forEach((r, i) => {
    mkdirSync(join(root, `run-${i}`));
    writeFileSync(join(root, `run-${i}`, "results.json"), JSON.stringify(r));
  });
  return root;
}

describe("the command line", () => {
  test("apps, a scenario, a testbed, a metric, switches, the store and the pages' folder", () => {
    const p = parseHistoryArgs(
      [
        "bun-bare",
        "-s",
        "api",
        "--testbed",
        "ab",
        "--metric",
        "rps",
        "--json",
        "--check",
        "--history",
        "h.sqlite",
        "-o",
        "out",
        "--export",
        "bmf",
        "b.json",
      ],
      "/here",
    );
    expect(p).toMatchObject({
      command: "show",
      filter: { apps: ["bun-bare"], scenario: "api", testbed: "ab", metric: "rps" },
      json: true,
      check: true,
      target: "/here/h.sqlite",
      outDir: "/here/out",
      bmf: "/here/b.json",
    });
    expect(parseHistoryArgs(["--history", "postgres://u@h/db"]).target).toBe("postgres://u@h/db");
    expect(parseHistoryArgs(["import", "a", "b"], "/here")).toMatchObject({
      command: "import",
      positionals: ["/here/a", "/here/b"],
      filter: {},
    });
    expect(parseHistoryArgs(["--help"]).command).toBe("help");
  });

  test("what it refuses, with the reason and exit 2", async () => {
    for (const [args, line] of [
      [["--bogus"], "history: unknown option '--bogus'"],
      [["-s"], "history: -s needs a value"],
      [["--metric", "p99"], "history: --metric is rps, rps-ratio, cpu-us or cpu-ratio, got 'p99'"],
      [["import"], "history: history import needs a folder: DIR ..."],
      [["--export", "csv", "x"], "history: --export needs a format and a file: bmf FILE"],
    ] as const) {
      const c = io();
      expect(await runHistoryCli(args, c.io)).toBe(2);
      expect(c.err[0]).toBe(line);
      expect(c.err[1]).toBe("Run './benchmark.sh history --help' for the flags.");
    }
  });

  test("--help: the usage, exit 0", async () => {
    const c = io();
    expect(await runHistoryCli(["--help"], c.io)).toBe(0);
    expect(c.out).toEqual([HISTORY_USAGE]);
  });
});

describe("import, show, check", () => {
  test("import: each complete run once; calibrations, --against and interrupted runs skipped", async () => {
    const calibration = run(5);
    calibration.manifest.calibration = {
      app: "bun-bare",
      costPerRequestNs: 1,
      nsPerIteration: 1,
      subsampleRounds: 3,
    };
    const interrupted = { ...run(6), status: "interrupted" as const };
    const against = run(7);
    against.manifest.settings.sideBySide = {
      pairs: [],
      addresses: [],
      against: { ref: "main", commit: "x" },
    };
    const root = runs([run(1), run(2), calibration, interrupted, against]);
    const target = join(root, "history.sqlite");
    const c = io();
    expect(await runHistoryCli(["import", root, "--history", target], c.io)).toBe(0);
    expect(c.out).toEqual([`history: 2 session(s) added to ${target}`]);
    expect(c.err.map((l) => l.replace(/^.*run-/, "run-"))).toEqual([
      "run-0: added",
      "run-1: added",
      "run-2: skipped: a --calibrate run",
      "run-3: skipped: interrupted, not complete",
      "run-4: skipped: an --against run",
    ]);
    const again = io();
    await runHistoryCli(["import", join(root, "run-0"), "--history", target], again.io);
    expect(again.out).toEqual([`history: 0 session(s) added to ${target}`]);
    expect(again.err[0]).toMatch(/run-0: already in the history$/);
    expect(notASession(run(1))).toBeUndefined();
  });

  test("--json: only the object; the sessions it lists give its across figures", async () => {
    const root = runs([run(1), run(2, 1.02), run(3, 0.98)]);
    const target = join(root, "history.sqlite");
    await runHistoryCli(["import", root, "--history", target], io().io);
    const c = io();
    expect(await runHistoryCli(["--json", "--history", target], c.io)).toBe(0);
    expect(c.out).toHaveLength(1);
    const json = JSON.parse(c.out[0] as string) as {
      series: { metric: string; sessions: { estimate: number }[]; across: { estimate: number } }[];
    };
    const rps = json.series.find((s) => s.metric === "rps");
    expect(rps?.sessions).toHaveLength(3);
    const logs = (rps?.sessions ?? []).map((s) => Math.log(s.estimate));
    expect(rps?.across.estimate).toBeCloseTo(Math.exp(logs.reduce((a, b) => a + b, 0) / 3), 9);
    expect(existsSync(join(root, "history"))).toBe(false); // --json writes no pages
  });

  test("the pages and BMF; --check: 0 while the newest is as predicted, 1 naming it when not", async () => {
    const root = runs([run(1), run(2, 1.01), run(3, 0.99), run(4, 1.0), run(5, 0.995)]);
    const target = join(root, "history.sqlite");
    await runHistoryCli(["import", root, "--history", target], io().io);
    const out = join(root, "pages");
    const bmf = join(root, "bmf.json");
    const calm = io();
    const args = ["--check", "--history", target, "-o", out, "--export", "bmf", bmf];
    expect(await runHistoryCli(args, calm.io)).toBe(0);
    expect(calm.err.at(-1)).toBe("history --check: no series' newest session is CHANGED");
    expect(readFileSync(join(out, "history.md"), "utf8")).toContain("### bun-bare · api · req/s");
    expect(readFileSync(join(out, "history.html"), "utf8")).toContain('<canvas id="history-0">');
    expect(Object.keys(JSON.parse(readFileSync(bmf, "utf8")))[0]).toMatch(
      /^bun-bare api [0-9a-f]+$/,
    );
    const slow = runs([run(6, 0.05)]);
    await runHistoryCli(["import", slow, "--history", target], io().io);
    const alarmed = io();
    expect(await runHistoryCli(["--check", "--history", target, "-o", out], alarmed.io)).toBe(1);
    expect(alarmed.err.filter((l) => l.startsWith("CHANGED"))).toEqual([
      expect.stringMatching(
        /^CHANGED: bun-bare · api · rps \(session 2026-11-28T06:00:00Z~[0-9a-f]{6}, testbed [0-9a-f]+\)$/,
      ),
    ]);
  });

  test("--update-readme: the README's history section from the series with 8+ sessions", async () => {
    const root = runs([1, 2, 3, 4, 5, 6, 7, 8].map((h) => run(h, 1 + (h % 3) / 100)));
    const target = join(root, "history.sqlite");
    await runHistoryCli(["import", root, "--history", target], io().io);
    const readme = join(root, "README.md");
    writeFileSync(readme, "# x\n\n<!-- history:start -->\nold\n<!-- history:end -->\n\nrest\n");
    const c = io();
    const args = ["--history", target, "--metric", "rps", "-o", root, "--update-readme", readme];
    expect(await runHistoryCli(args, c.io)).toBe(0);
    const text = readFileSync(readme, "utf8");
    expect(text).toMatch(
      /\| bun-bare · api · req\/s \| [\d,]+ \([\d,]+–[\d,]+\) \| ±[\d.]+% \| 8 over 7\.0 h \| Test CPU, 2 cores, 8 GiB, kvm \|/,
    );
    expect(text.endsWith("<!-- history:end -->\n\nrest\n")).toBe(true);
    writeFileSync(readme, "no section\n");
    const refused = io();
    expect(await runHistoryCli(args, refused.io)).toBe(2);
    expect(refused.err.join(" ")).toContain(
      "has no <!-- history:start --> ... <!-- history:end --> section",
    );
  });

  test("no history yet: nothing to show, exit 0; a file that is not one: one line, exit 2, untouched", async () => {
    const root = temp("bench-history-cmd-");
    const missing = io();
    expect(
      await runHistoryCli(["--history", join(root, "none.sqlite"), "-o", root], missing.io),
    ).toBe(0);
    expect(missing.out[0]).toContain("history: no series");
    expect(existsSync(join(root, "none.sqlite"))).toBe(false);
    const bad = join(root, "bad.sqlite");
    writeFileSync(bad, "not a database at all, but a long enough text to look like a file\n");
    const before = createHash("sha256").update(readFileSync(bad)).digest("hex");
    for (const args of [
      ["--history", bad],
      ["import", root, "--history", bad],
    ]) {
      const c = io();
      expect(await runHistoryCli(args, c.io)).toBe(2);
      expect(c.err).toEqual([
        `history: ${bad}: not a runtime-bench history (file is not a database); nothing was written to it`,
      ]);
    }
    expect(createHash("sha256").update(readFileSync(bad)).digest("hex")).toBe(before);
  });

  test("resultsFiles: a run folder, or the run folders in a folder; a missing one said", () => {
    const root = runs([run(1), run(2)]);
    expect(resultsFiles(join(root, "run-1"))).toEqual([join(root, "run-1", "results.json")]);
    expect(resultsFiles(root)).toEqual([
      join(root, "run-0", "results.json"),
      join(root, "run-1", "results.json"),
    ]);
    expect(() => resultsFiles(join(root, "nope"))).toThrow("nope: no such folder");
  });
});
