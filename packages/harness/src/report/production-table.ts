// The production-tax table: per app, each middleware stage's req/s as a share of the same app's
// api scenario, beside the framework tax (api against the runtime's bare app). The verdicts are
// the analysis's (production.ts): ≈ marks a stage not significantly slower or faster than api,
// with the smallest difference the run could have detected.

import type { Analysis, SummaryRow } from "../analysis/analysis.ts";
import { apiKeyOf, type StageCost } from "../analysis/production.ts";
import { fmt } from "./format.ts";
import { starred } from "./mermaid.ts";
import { mddText, relativeText } from "./summary.ts";

// Stryker disable StringLiteral: the section's prose, read by people; no figure or verdict comes from it
export const PRODUCTION_INTRO =
  "Each middleware stage's (and `tls`'s, `tls-handshake`'s, `h2`'s and `h2c`'s: the same answer over HTTPS, over a new HTTPS connection each, over HTTP/2, and over cleartext HTTP/2) mean req/s as a percentage of the same app's `api` scenario (the same " +
  "processes measured both). ≈: not significantly different from api (a paired t-test on the " +
  "per-process log ratios from 20 processes, else Welch's; every stage of every app is one " +
  "family, held to 5% by Holm), with the smallest " +
  "difference the run could have detected. The framework tax column is api against the " +
  "runtime's bare app. The `ratelimit` stage measures the 429 a limiter answers under a flood, " +
  "and `etag` the 304 of a matching If-None-Match. * marks a mean with samples that were not " +
  "the server's best (load-generator bound, generator ceiling, unsaturated, contended or " +
  "machine-full; the " +
  "scenario's table says which): a share of such an api, or such a stage, is off by as much.";
// Stryker restore StringLiteral

const mark = (row: SummaryRow | undefined) => (row && starred(row) ? "*" : "");

export interface ProductionView {
  /** The api group the stages are set against ("api", or "api (c=10)"). */
  readonly api: string;
  readonly header: string[];
  readonly rows: string[][];
}

/** "64%", or a tie: "≈98% (could detect ≥ 5.1%)". */
export function stageText(cost: StageCost | undefined, stageRow?: SummaryRow): string {
  if (!cost) return "—";
  const text = `${relativeText(cost.pctOfApi, cost.vsApi)}${mark(stageRow)}`;
  return cost.vsApi.significant || cost.vsApi.mdd === undefined
    ? text
    : `${text} (could detect ${mddText(cost.vsApi.mdd)})`;
}

/** One table per api group that has stages set against it; none without middleware stages. */
export function productionViews(analysis: Analysis): ProductionView[] {
  const byApi = new Map<string, StageCost[]>();
  for (const cost of analysis.production) {
    const api = apiKeyOf(cost.group, cost.stage);
    byApi.set(api, [...(byApi.get(api) ?? []), cost]);
  }
  const rowOf = (group: string, app: string) =>
    analysis.groups.get(group)?.rows.find((r) => r.app === app);
  return [...byApi].map(([api, costs]) => {
    const stages = [...new Set(costs.map((c) => c.stage))];
    const rows = analysis.groups.get(api)?.rows ?? [];
    const cell = (app: string, stage: string) => {
      const cost = costs.find((c) => c.app === app && c.stage === stage);
      return stageText(cost, cost && rowOf(cost.group, app));
    };
    return {
      api,
      header: ["app", "api req/s", "framework tax (of bare)", ...stages],
      rows: rows
        .filter((row) => costs.some((c) => c.app === row.app))
        .map((row) => [
          row.app,
          `${fmt(row.rps.mean)}${mark(row)}`,
          row.pctOfBaseline === undefined ? "—" : relativeText(row.pctOfBaseline, row.vsBaseline),
          ...stages.map((stage) => cell(row.app, stage)),
        ]),
    };
  });
}
