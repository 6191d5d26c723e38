// The history analysed for every view (history/view.ts): series never pooled across testbeds
// or settings, the across-session figures a reader can recompute, CHANGED as each run saw it,
// steps, the slope of a ratio, and filters that never change a verdict.

import { describe, expect, test } from "bun:test";
import { changePoints, HISTORY_MAX_P, OTAVA_MAX_P } from "../src/analysis/change-points.ts";
import type { SeriesEstimate } from "../src/analysis/session-estimates.ts";
import { tCritical } from "../src/analysis/stats.ts";
import type { SessionRecord } from "../src/history/store.ts";
import { changedNow, historyView, SLOPE_MIN_SESSIONS } from "../src/history/view.ts";
import { session } from "./support/history-fixtures.ts";

const at = (i: number) => new Date(Date.UTC(2026, 10, 28, i)).toISOString();

/** Sessions of bun-bare's req/s at exp(log) each, an hour apart, named s0, s1, ... */
const sessions = (
  logs: number[],
  tweak: (s: SessionRecord, i: number) => SessionRecord = (s) => s,
) => logs.map((l, i) => tweak(session(`s${i}`, at(i), l), i));

const WOBBLE = [0, 0.03, -0.02, 0.01, -0.03, 0.02, -0.01, 0.015];

describe("historyView", () => {
  const logs = WOBBLE.map((w) => Math.log(1000) + w);
  const view = historyView(sessions(logs));
  const rps = view.find((s) => s.metric === "rps");

  test("one series per figure, the sessions in time order with their own intervals", () => {
    expect(view.map((s) => `${s.app}/${s.reference}/${s.metric}`)).toEqual([
      "bun-bare//rps",
      "node-bare/bun-bare/rps-ratio",
    ]);
    expect(rps?.sessions.map((s) => s.run)).toEqual(WOBBLE.map((_, i) => `s${i}`));
    const first = rps?.sessions[0];
    const half = tCritical(0.05, 2) * 0.01;
    expect(first?.estimate).toBeCloseTo(1000, 9);
    expect(first?.low).toBeCloseTo(1000 * Math.exp(-half), 9);
    expect(first?.high).toBeCloseTo(1000 * Math.exp(half), 9);
    expect(rps?.spanHours).toBe(7);
    expect(rps?.unit).toBe("req/s");
    expect(rps?.testbedLabel).toBe("Test CPU, 2 cores, 8 GiB, kvm");
  });

  test("across sessions: what a reader recomputes from the sessions listed", () => {
    const back = (rps?.sessions ?? []).map((s) => Math.log(s.estimate));
    const n = back.length;
    const mean = back.reduce((a, b) => a + b, 0) / n;
    const sd = Math.sqrt(back.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
    const t = tCritical(0.05, n - 1);
    expect(rps?.across?.estimate).toBeCloseTo(Math.exp(mean), 9);
    expect(rps?.across?.low).toBeCloseTo(Math.exp(mean - (t * sd) / Math.sqrt(n)), 9);
    expect(rps?.across?.high).toBeCloseTo(Math.exp(mean + (t * sd) / Math.sqrt(n)), 9);
    expect(rps?.across?.betweenSd).toBeCloseTo(sd, 12);
    expect(rps?.prediction?.low).toBeCloseTo(Math.exp(mean - t * sd * Math.sqrt(1 + 1 / n)), 9);
    expect(rps?.prediction?.high).toBeCloseTo(Math.exp(mean + t * sd * Math.sqrt(1 + 1 / n)), 9);
    expect(rps?.changed).toEqual([]);
    expect(rps?.changePoints).toEqual([]);
    expect(changedNow(view)).toEqual([]);
  });

  test("one session: no across figures yet", () => {
    const one = historyView(sessions([Math.log(1000)]));
    expect(one[0]?.across).toBeUndefined();
    expect(one[0]?.prediction).toBeUndefined();
  });

  test("never pooled: another testbed or other settings is another series", () => {
    const mixed = sessions(logs, (s, i) =>
      i % 2 === 0
        ? s
        : i % 4 === 1
          ? { ...s, testbed: { ...s.testbed, id: "tb2" } }
          : { ...s, settingsKey: "k2" },
    );
    const v = historyView(mixed).filter((s) => s.metric === "rps");
    expect(v.map((s) => [s.testbed, s.settingsKey, s.sessions.length])).toEqual([
      ["tb1", "k1", 4],
      ["tb1", "k2", 2],
      ["tb2", "k1", 2],
    ]);
  });

  test("CHANGED: a session far outside its earlier ones, as it was when new and as the newest", () => {
    const jumped = [...logs.slice(0, 5), Math.log(2000)];
    const v = historyView(sessions(jumped));
    const r = v.find((s) => s.metric === "rps");
    expect(r?.changed).toEqual(["s5"]);
    expect(changedNow(v).map((s) => s.app)).toEqual(["bun-bare"]);
    // a later session back at the old level: s5 stays CHANGED as it was, the newest is not
    const back = historyView(sessions([...jumped, Math.log(1000)]));
    expect(back.find((s) => s.metric === "rps")?.changed).toEqual(["s5"]);
    expect(changedNow(back)).toEqual([]);
  });

  test("filters keep series, never change a verdict", () => {
    const jumped = sessions([...logs.slice(0, 5), Math.log(2000)]);
    expect(historyView(jumped, { apps: ["node-bare"] }).map((s) => s.metric)).toEqual([
      "rps-ratio",
    ]);
    expect(historyView(jumped, { apps: ["bun-bare"] })).toHaveLength(2); // as app or reference
    expect(historyView(jumped, { metric: "rps" })[0]?.changed).toEqual(["s5"]);
    expect(historyView(jumped, { scenario: "echo" })).toEqual([]);
    expect(historyView(jumped, { scenario: "api" })).toHaveLength(2);
    expect(historyView(jumped, { metric: "rps-ratio" }).map((s) => s.app)).toEqual(["node-bare"]);
    expect(historyView(jumped, { testbed: "tb" })).toHaveLength(2);
    expect(historyView(jumped, { testbed: "zz" })).toEqual([]);
  });

  test("sessions in time order whatever order the store gives them", () => {
    const r = historyView(sessions(logs).reverse()).find((s) => s.metric === "rps");
    expect(r?.sessions.map((s) => s.run)).toEqual(WOBBLE.map((_, i) => `s${i}`));
    expect(r?.sessions[1]?.estimate).toBeCloseTo(1000 * Math.exp(0.03), 9);
  });

  test("the settings' mode, or none", () => {
    expect(rps?.mode).toBe("one at a time");
    expect(rps?.settings).toEqual({ mode: "one at a time" });
    const noMode = historyView(sessions(logs, (s) => ({ ...s, settings: { workers: "2" } })));
    expect(noMode.map((s) => s.mode)).toEqual(["", ""]);
  });

  test("ordered by testbed, settings, scenario, metric, reference and app, not as recorded", () => {
    const e = (
      app: string,
      reference: string,
      scenario: string,
      metric: SeriesEstimate["metric"],
    ) => ({ app, reference, scenario, metric, estimate: 0, se: 0.01, n: 3 }) as SeriesEstimate;
    const estimates = [
      e("node-bare", "bun-bare", "json", "rps-ratio"),
      e("node-bare", "", "json", "rps"),
      e("deno-bare", "bun-bare", "api", "rps-ratio"),
      e("bun-bare", "", "json", "rps"),
      e("node-bare", "deno-bare", "api", "rps-ratio"),
      e("bun-bare", "", "api", "cpu-us"),
      e("bun-bare", "", "api", "rps"),
    ];
    const shuffled = sessions([0, 0], (s) => ({ ...s, estimates }));
    const other = sessions([0], (s) => ({
      ...s,
      run: "t0",
      testbed: { ...s.testbed, id: "tb0" },
      estimates: [e("zz-bare", "", "zz", "rps")],
    }));
    expect(
      historyView([...shuffled, ...other]).map(
        (s) => `${s.testbed} ${s.scenario} ${s.metric} ${s.app}/${s.reference}`,
      ),
    ).toEqual([
      "tb0 zz rps zz-bare/",
      "tb1 api cpu-us bun-bare/",
      "tb1 api rps bun-bare/",
      "tb1 api rps-ratio deno-bare/bun-bare",
      "tb1 api rps-ratio node-bare/deno-bare",
      "tb1 json rps bun-bare/",
      "tb1 json rps node-bare/",
      "tb1 json rps-ratio node-bare/bun-bare",
    ]);
  });

  test("a step: where Otava's method puts it, with both levels", () => {
    const step = [...WOBBLE, ...WOBBLE].map((w, i) => Math.log(1000) + w + (i >= 8 ? 0.3 : 0));
    const r = historyView(sessions(step)).find((s) => s.metric === "rps");
    expect(r?.changePoints.map((c) => c.run)).toEqual(["s8"]);
    expect(r?.changePoints[0]?.before).toBeCloseTo(1000 * Math.exp(0), -1);
    expect(r?.changePoints[0]?.after).toBeCloseTo(1000 * Math.exp(0.3), -1);
  });

  test("a step is held to the history's threshold, not Otava's default", () => {
    // a 4% step: p ≈ 0.0010, above Otava's 0.001 and below the history's 0.002
    const step = [...WOBBLE, ...WOBBLE].map((w, i) => Math.log(1000) + w + (i >= 8 ? 0.04 : 0));
    expect(changePoints(step)).toEqual([]);
    const [found] = changePoints(step, { maxP: HISTORY_MAX_P });
    expect(found?.p).toBeGreaterThan(OTAVA_MAX_P);
    const r = historyView(sessions(step)).find((s) => s.metric === "rps");
    expect(r?.changePoints).toEqual([
      {
        run: "s8",
        p: found?.p as number,
        before: Math.exp(found?.before as number),
        after: Math.exp(found?.after as number),
      },
    ]);
  });

  test("a ratio with eight sessions: its slope against the reference's own cost", () => {
    const many = sessions(logs, (s, i) => ({
      ...s,
      estimates: s.estimates.map((e) =>
        e.reference ? { ...e, estimate: -1 + 0.5 * (i / 10), x: 2 + i / 10 } : e,
      ),
    }));
    const ratio = historyView(many).find((s) => s.metric === "rps-ratio");
    expect(ratio?.sessions.length).toBe(SLOPE_MIN_SESSIONS);
    expect(ratio?.slope?.slope).toBeCloseTo(0.5, 9);
    expect(ratio?.slope?.n).toBe(8);
    const fewer = historyView(many.slice(0, 7)).find((s) => s.metric === "rps-ratio");
    expect(fewer?.slope).toBeUndefined();
    expect(fewer?.heldOut).toBeUndefined();
    // eight steady sessions: each inside the others' prediction
    expect(historyView(many).find((s) => s.metric === "rps")?.heldOut).toEqual({
      inside: 8,
      of: 8,
    });
    expect(historyView(many).find((s) => s.metric === "rps")?.slope).toBeUndefined();
  });

  test("no slope unless eight sessions know the reference's cost, and never for an app's own figure", () => {
    const withX = (keep: (i: number) => boolean) =>
      sessions(logs, (s, i) => ({
        ...s,
        estimates: s.estimates.map((e) =>
          e.reference
            ? keep(i)
              ? { ...e, x: 2 + i / 10 }
              : {
                  app: e.app,
                  reference: e.reference,
                  scenario: e.scenario,
                  metric: e.metric,
                  estimate: e.estimate,
                  se: e.se,
                  n: e.n,
                }
            : { ...e, x: 2 + i / 10 },
        ),
      }));
    const one = historyView(withX((i) => i !== 3));
    expect(one.find((s) => s.metric === "rps-ratio")?.sessions).toHaveLength(8);
    expect(one.find((s) => s.metric === "rps-ratio")?.slope).toBeUndefined();
    // an app's own req/s, x known in all eight: no reference, no slope
    expect(one.find((s) => s.metric === "rps")?.slope).toBeUndefined();
    expect(historyView(withX(() => true)).find((s) => s.metric === "rps-ratio")?.slope?.n).toBe(8);
  });
});
