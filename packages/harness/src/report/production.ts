// The production-tax table: per app, each middleware stage's req/s as a share of the same app's
// api scenario, beside the framework tax (api against the runtime's bare app). The verdicts are
// the analysis's (production.ts): ≈ marks a stage not significantly slower or faster than api,
// with the smallest difference the run could have detected.

import type { Analysis } from "../analysis.ts";
import type { StageCost } from "../production.ts";
import { mddText, relativeText } from "../summary.ts";
import { fmt } from "./format.ts";

export const PRODUCTION_INTRO =
  "Each middleware stage's mean req/s as a percentage of the same app's `api` scenario (the same " +
  "processes measured both). ≈: not significantly different from api (Welch's t-test on process " +
  "means; every stage of every app is one family, held to 5% by Holm), with the smallest " +
  "difference the run could have detected. The framework tax column is api against the " +
  "runtime's bare app. The `ratelimit` stage measures the 429 a limiter answers under a flood, " +
  "and `etag` the 304 of a matching If-None-Match.";

export interface ProductionView {
  /** The api group the stages are set against ("api", or "api (c=10)"). */
  readonly api: string;
  readonly header: string[];
  readonly rows: string[][];
}

/** "64%", or a tie: "≈98% (could detect ≥ 5.1%)". */
export function stageText(cost: StageCost | undefined): string {
  if (!cost) return "—";
  const text = relativeText(cost.pctOfApi, cost.vsApi);
  return cost.vsApi.significant || cost.vsApi.mdd === undefined
    ? text
    : `${text} (could detect ${mddText(cost.vsApi.mdd)})`;
}

/** One table per api group that has stages set against it; none without middleware stages. */
export function productionViews(analysis: Analysis): ProductionView[] {
  const byApi = new Map<string, StageCost[]>();
  for (const cost of analysis.production) {
    const api = `api${cost.group.slice(cost.stage.length)}`;
    byApi.set(api, [...(byApi.get(api) ?? []), cost]);
  }
  return [...byApi].map(([api, costs]) => {
    const stages = [...new Set(costs.map((c) => c.stage))];
    const rows = analysis.groups.get(api)?.rows ?? [];
    return {
      api,
      header: ["app", "api req/s", "framework tax (of bare)", ...stages],
      rows: rows
        .filter((row) => costs.some((c) => c.app === row.app))
        .map((row) => [
          row.app,
          fmt(row.rps.mean),
          row.pctOfBaseline === undefined ? "—" : relativeText(row.pctOfBaseline, row.vsBaseline),
          ...stages.map((stage) =>
            stageText(costs.find((c) => c.app === row.app && c.stage === stage)),
          ),
        ]),
    };
  });
}
