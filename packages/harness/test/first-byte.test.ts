// The time to the first byte of a streamed answer (analysis.ts's firstByteMs, report/first-byte.ts),
// on synthetic runs: medians over the valid samples, the p99's range, only the streamed
// scenarios, and nothing where the samples' tool reported none (wrk, autocannon).
import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import { summaryExtras } from "../src/report/extras.ts";
import { FIRST_BYTE_HEADER, firstByteViews, isStreamed } from "../src/report/first-byte.ts";
import { markdownReport } from "../src/report/markdown.ts";
import type { Trial } from "../src/results/schema.ts";
import { syntheticRun, syntheticTrial } from "./support/synthetic.ts";

/** A sample of `scenario` whose answers' first bytes came at p50 and p99 ms (none: undefined). */
function sample(app: string, scenario: string, round: number, first?: [number, number]): Trial {
  const t = syntheticTrial(app, scenario, round, 50, 1000, 40);
  if (!first || !t.result) return t;
  const [p50, p99] = first;
  return { ...t, result: { ...t.result, firstByteMs: { mean: p50 * 1.1, p50, p99 } } };
}

const streamRun = (trials: Trial[], scenarios = ["stream"]) =>
  syntheticRun(["bun-bare", "node-bare"], scenarios, trials);

describe("time to first byte", () => {
  test("the streamed scenarios only: sse and stream, not api or tls", () => {
    expect(["sse", "stream", "api", "tls", "large", "nope"].map(isStreamed)).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });

  test("medians over valid samples of each sample's p50 and p99, each with its range; the whole answer beside", () => {
    const analysis = analyze(
      streamRun([
        sample("bun-bare", "stream", 1, [0.2, 1.0]),
        sample("bun-bare", "stream", 2, [0.4, 3.0]),
        sample("bun-bare", "stream", 3, [0.3, 2.0]),
        sample("node-bare", "stream", 1, [1.5, 9.0]),
        sample("node-bare", "stream", 2, [1.1, 7.0]),
        sample("node-bare", "stream", 3, [1.3, 8.0]),
      ]),
    );
    const bare = analysis.groups.get("stream")?.rows.find((r) => r.app === "bun-bare");
    expect(bare?.firstByteMs).toEqual({
      p50: 0.3,
      p50Range: { low: 0.2, high: 0.4 },
      p99: 2.0,
      p99Range: { low: 1.0, high: 3.0 },
      samples: 3,
    });
    const [view, ...more] = firstByteViews(analysis);
    expect(more).toEqual([]);
    expect(view?.group).toBe("stream");
    // The whole answer's p50: syntheticTrial's p99 / 4.
    expect(view?.rows).toContainEqual([
      "bun-bare",
      "0.30 (0.20–0.40)",
      "2.00 (1.00–3.00)",
      "10.00",
      "3",
    ]);
    expect(view?.rows).toContainEqual([
      "node-bare",
      "1.30 (1.10–1.50)",
      "8.00 (7.00–9.00)",
      "10.00",
      "3",
    ]);
    expect(FIRST_BYTE_HEADER).toHaveLength(view?.rows[0]?.length ?? 0);
    const markdown = markdownReport(analysis);
    expect(markdown).toContain("## Time to first byte");
    expect(markdown).toContain(
      "| app | first byte p50 ms (range) | first byte p99 ms (range) | whole answer p50 ms | samples |\n| :-- | --: | --: | --: | --: |\n",
    );
    // One streamed scenario: its table under the section's own heading, none of its own.
    expect(markdown).not.toContain("### stream");
    expect(summaryExtras(analysis).join("\n")).toContain(
      "== stream: time to the first byte of the answer's body (oha)",
    );
  });

  test("a tool that reports none (wrk), or a sample without it: no figure, no section", () => {
    const none = analyze(
      streamRun([sample("bun-bare", "stream", 1), sample("node-bare", "stream", 1)]),
    );
    expect(none.groups.get("stream")?.rows.every((r) => r.firstByteMs === undefined)).toBe(true);
    expect(firstByteViews(none)).toEqual([]);
    expect(markdownReport(none)).not.toContain("Time to first byte");
    // One sample of three without it: the app's figure would not be its samples'.
    const partial = analyze(
      streamRun([
        sample("bun-bare", "stream", 1, [0.2, 1.0]),
        sample("bun-bare", "stream", 2),
        sample("node-bare", "stream", 1, [1.5, 9.0]),
      ]),
    );
    expect(firstByteViews(partial)[0]?.rows.map((r) => r[0])).toEqual(["node-bare"]);
  });

  test("an app with no valid sample has no figure (not a median of nothing)", () => {
    const invalid = (t: Trial): Trial => ({
      ...t,
      checks: { ...t.checks, valid: false, invalidReasons: ["the server died"] },
    });
    const analysis = analyze(
      streamRun([
        sample("bun-bare", "stream", 1, [0.2, 1.0]),
        invalid(sample("node-bare", "stream", 1)),
        invalid(sample("node-bare", "stream", 2)),
      ]),
    );
    const rows = analysis.groups.get("stream")?.rows ?? [];
    expect(rows.find((r) => r.app === "node-bare")?.firstByteMs).toBeUndefined();
    expect(firstByteViews(analysis)[0]?.rows.map((r) => r[0])).toEqual(["bun-bare"]);
  });

  test("api's first byte is not shown; two streamed scenarios each get a heading", () => {
    const analysis = analyze(
      streamRun(
        [
          sample("bun-bare", "api", 1, [0.1, 0.5]),
          sample("bun-bare", "sse", 1, [0.2, 0.6]),
          sample("bun-bare", "stream", 1, [0.3, 0.7]),
        ],
        ["api", "sse", "stream"],
      ),
    );
    expect(firstByteViews(analysis).map((v) => v.group)).toEqual(["sse", "stream"]);
    expect(markdownReport(analysis)).toContain("### sse");
  });
});
