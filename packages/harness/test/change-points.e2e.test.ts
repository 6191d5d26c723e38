// change-points.ts against Apache Otava's own code: the same series, the same options, through
// Otava 0.8.0's compute_change_points() in a Python virtual environment of its own
// (.cache/otava-venv, made on the first run and reused), and the same change points out:
// indices equal, p and segment means to 9 digits. Otava is installed without its dependencies
// (BigQuery, Slack, PostgreSQL clients its analysis never imports) and with the NumPy and SciPy
// its pyproject.toml allows, each pinned. Elsewhere a missing python3, venv or registry skips
// this (visibly); in CI (CI=true) it fails.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  type ChangePointOptions,
  changePoints,
  HISTORY_MAX_P,
} from "../src/analysis/change-points.ts";
import { mulberry32 } from "../src/analysis/random.ts";
import { REPO_ROOT } from "../src/index.ts";
import { normal } from "./support/simulate.ts";

const OTAVA = "apache-otava==0.8.0";
const VENV = join(REPO_ROOT, ".cache", "otava-venv");
const PYTHON = join(VENV, "bin", "python");

/** A command's outcome, bounded by `seconds`: its stdout, or why it failed. */
function run(cmd: string, args: string[], seconds: number, input?: string) {
  const r = spawnSync(cmd, args, {
    encoding: "utf8",
    input,
    timeout: seconds * 1000,
    killSignal: "SIGKILL",
    maxBuffer: 64 * 1024 * 1024,
  });
  const why = r.error
    ? r.error.message
    : r.status !== 0
      ? `exit ${r.status}: ${r.stderr.trim().split("\n").slice(-3).join(" / ")}`
      : undefined;
  return { stdout: r.stdout ?? "", why };
}

/** Whether the venv already holds Otava 0.8.0 with NumPy and SciPy importable. */
const ready = () =>
  existsSync(PYTHON) &&
  run(
    PYTHON,
    [
      "-I",
      "-c",
      "import importlib.metadata as m, numpy, scipy, otava.analysis; assert m.version('apache-otava') == '0.8.0'",
    ],
    60,
  ).why === undefined;

/** The venv's Python, made if it is missing; or why there is none. */
function otavaPython(): { python?: string; why?: string } {
  if (ready()) return { python: PYTHON };
  const version = run("python3", ["-c", "import sys; print(sys.version_info[1])"], 30);
  if (version.why) return { why: `no python3 (${version.why})` };
  const minor = Number(version.stdout.trim());
  // Otava 0.8.0: Python 3.10–3.14, NumPy 2.2 below 3.14, SciPy 1.15 on 3.10 and 1.16 after.
  if (!(minor >= 10 && minor <= 13))
    return { why: `python3.${minor}: Otava's pins need 3.10–3.13` };
  const venv = run("python3", ["-m", "venv", "--clear", VENV], 120);
  if (venv.why) return { why: `python3 -m venv failed (${venv.why})` };
  const scipy = minor === 10 ? "scipy==1.15.3" : "scipy==1.16.3";
  const pip = run(
    PYTHON,
    ["-m", "pip", "install", "--no-input", "--disable-pip-version-check", "--retries", "1"].concat([
      "--timeout",
      "30",
      "--no-deps",
      OTAVA,
      "numpy==2.2.6",
      scipy,
    ]),
    600,
  );
  if (pip.why) return { why: `pip install ${OTAVA} failed (${pip.why})` };
  return ready() ? { python: PYTHON } : { why: `${OTAVA} installed but does not import` };
}

const otava = otavaPython();
const CI = process.env.CI === "true";
if (!otava.python && !CI) console.log(`change-points.e2e.test.ts: skipped: ${otava.why}`);

/** Otava's change points of each case: [index, pvalue, mean_1, mean_2] each. */
const ASK = `
import json, sys
from otava.analysis import compute_change_points
out = []
for case in json.load(sys.stdin):
    points, _ = compute_change_points(case["values"], window_len=case["window"], max_pvalue=case["maxP"])
    out.append([[int(c.index), float(c.stats.pvalue), float(c.stats.mean_1), float(c.stats.mean_2)] for c in points])
print(json.dumps(out))
`;

interface Case {
  readonly name: string;
  readonly values: readonly number[];
  readonly options: Required<ChangePointOptions>;
}

/** Histories of log estimates: session noise at `sd` around the levels given. */
function cases(): Case[] {
  const z = normal(mulberry32(2026));
  const series = (levels: readonly number[], sd: number) => levels.map((l) => l + sd * z());
  const flat = series(Array(20).fill(0), 0.07);
  const one = series([...Array(10).fill(0), ...Array(10).fill(0.14)], 0.07);
  const two = series(
    [...Array(12).fill(0), ...Array(12).fill(0.25), ...Array(12).fill(0.05)],
    0.05,
  );
  const noisy = series([...Array(30).fill(0), ...Array(30).fill(0.1)], 0.15);
  const long = series(
    [...Array(40).fill(0), ...Array(40).fill(0.2), ...Array(40).fill(-0.1)],
    0.06,
  );
  const otava = { window: 50, maxP: 0.001 };
  return [
    { name: "flat", values: flat, options: otava },
    { name: "flat, history threshold", values: flat, options: { window: 50, maxP: HISTORY_MAX_P } },
    { name: "one step", values: one, options: otava },
    {
      name: "one step, history threshold",
      values: one,
      options: { window: 50, maxP: HISTORY_MAX_P },
    },
    { name: "two steps", values: two, options: otava },
    { name: "noisy", values: noisy, options: otava },
    { name: "noisy at 0.05", values: noisy, options: { window: 50, maxP: 0.05 } },
    { name: "long, windows of 50", values: long, options: otava },
    { name: "long, windows of 15", values: long, options: { window: 15, maxP: 0.01 } },
    {
      name: "Otava's merge quirk",
      values: [2, 1, 0, 1, -1, -1, -1, 0, -2, -5, -4],
      options: { window: 50, maxP: 0.01 },
    },
  ];
}

describe("change points against Apache Otava 0.8.0", () => {
  test.skipIf(!otava.python && !CI)(
    "the same series give the same change points, p and segment means",
    () => {
      if (!otava.python) throw new Error(`Otava is required in CI: ${otava.why}`);
      const all = cases();
      const input = JSON.stringify(
        all.map((c) => ({ values: c.values, window: c.options.window, maxP: c.options.maxP })),
      );
      const asked = run(otava.python, ["-I", "-c", ASK], 120, input);
      expect(asked.why).toBeUndefined();
      const theirs = JSON.parse(asked.stdout) as [number, number, number, number][][];
      let found = 0;
      all.forEach((c, k) => {
        const ours = changePoints(c.values, c.options);
        const expected = theirs[k] ?? [];
        expect({ name: c.name, indices: ours.map((o) => o.index) }).toEqual({
          name: c.name,
          indices: expected.map((e) => e[0]),
        });
        ours.forEach((o, i) => {
          const [, p, before, after] = expected[i] as [number, number, number, number];
          expect(o.p === p || Math.abs(o.p / p - 1) < 1e-9).toBe(true);
          expect(o.before).toBeCloseTo(before, 9);
          expect(o.after).toBeCloseTo(after, 9);
        });
        found += ours.length;
      });
      // The cases are not all empty: steps were there to be found (and were, by both).
      expect(found).toBeGreaterThan(5);
    },
    180_000,
  );
});
