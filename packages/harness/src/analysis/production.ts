// The production tax: what each middleware stage (auth, cors, gzip, etag, ratelimit, stack)
// and each protocol stage (the same answer over HTTPS, over HTTP/2, or in cleartext HTTP/2) costs an app, against the same app's `api` scenario in the same run. Each round measures
// every scenario on one process, so the two estimates come from the same processes. All the
// run's stage-against-api comparisons are one family, held to ALPHA by Holm, like a group's.

import { findScenario, isStage } from "@bench/contract";
import type { GroupAnalysis } from "./analysis.ts";
import { scenarioOfKey } from "./groups.ts";
import { familyVerdicts, type PairTest, testPair, type Verdict } from "./verdicts.ts";

export interface StageCost {
  readonly app: string;
  /** The middleware or protocol scenario (tls, tls-handshake, h2, h2c). */
  readonly stage: string;
  /** Its group ("auth", or "auth (c=10)" when a run measured several counts). */
  readonly group: string;
  /** The stage's mean req/s as a percentage of the same app's api mean. */
  readonly pctOfApi: number;
  /** The stage against api (change = stage / api − 1); p undefined when untestable. */
  readonly vsApi: Verdict & { readonly p?: number };
}

/** The api group with the same connection and worker tags as a stage's group. */
export const apiKeyOf = (key: string, stage: string) => `api${key.slice(stage.length)}`;

/** Every measured (app, stage) with the same app's api measured too, in the run's order. */
export function productionTax(
  groups: ReadonlyMap<string, Pick<GroupAnalysis, "rows">>,
): StageCost[] {
  const members: (Omit<StageCost, "vsApi"> & { key: string; test: PairTest | undefined })[] = [];
  for (const [key, group] of groups) {
    const stage = scenarioOfKey(key);
    const scenario = findScenario(stage);
    if (!scenario || !isStage(scenario)) continue;
    const api = groups.get(apiKeyOf(key, stage));
    for (const row of group.rows) {
      const base = api?.rows.find((r) => r.app === row.app);
      if (!base || base.rps.n === 0 || row.rps.n === 0) continue;
      members.push({
        key: `${key}\u0000${row.app}`,
        app: row.app,
        stage,
        group: key,
        pctOfApi: (row.rps.mean / base.rps.mean) * 100,
        test: testPair(base.estimate, row.estimate),
      });
    }
  }
  const verdicts = familyVerdicts(members, (t) => t.p, 2);
  return members.map(({ key, test: _, ...cost }) => {
    const v = verdicts.get(key) ?? { significant: false };
    return { ...cost, vsApi: v.test ? { ...v, p: v.test.p } : v };
  });
}
