// The sections a report has after its scenario tables, defined once: each one's title, intro,
// tables, notes and charts, in the one order every renderer follows. markdown.ts, html.ts and
// the terminal's extras.ts walk this list and only decide how a heading, a table or a chart
// looks; a new table is added here, in one place, and appears in all three.

import { findScenario } from "@bench/contract";
import type { Analysis } from "../analysis/analysis.ts";
import {
  CALIBRATION_HEADER,
  calibrationCaption,
  calibrationCells,
  calibrationIntro,
} from "./calibration-table.ts";
import { CPU_COST_HEADER, CPU_COST_INTRO, cpuCostViews } from "./cpu-cost.ts";
import { CURVE_INTRO, curveViews } from "./curve.ts";
import { FIRST_BYTE_HEADER, FIRST_BYTE_INTRO, firstByteViews } from "./first-byte.ts";
import { PRODUCTION_INTRO, productionViews } from "./production-table.ts";
import { PROFILES_INTRO, profileViews } from "./profiles-table.ts";
import { CAPACITY_HEADER, RATES_HEADER, ratesIntro, rateViews } from "./rates-table.ts";
import {
  AGAINST_HEADER,
  AGAINST_INTRO,
  againstCells,
  againstLine,
  SIDE_HEADER,
  SIDE_INTRO,
  sideCells,
  sideNotes,
} from "./side-by-side.ts";
import { STARTUP_HEADER, STARTUP_INTRO, startupCells } from "./startup-table.ts";
import { STEAL_HEADER, STEAL_INTRO, stealLine, stealRows } from "./steal-table.ts";
import { VERSIONS_INTRO, versionChart, versionMermaid, versionViews } from "./versions.ts";
import {
  SCALING_INTRO,
  scalingViews,
  WORKERS_HEADER,
  WORKERS_INTRO,
  workersCells,
} from "./workers.ts";

/** A table: its header, each column's alignment ("l" or "r"), and its rows of text. */
export interface Table {
  readonly header: readonly string[];
  readonly align: string;
  readonly rows: readonly string[][];
  /** The terminal summary shows this table under "== caption" (with a narrower header). */
  readonly terminal?: { readonly caption: string; readonly header?: readonly string[] };
}

/** A flag's explanation for an app, with its samples' notes beneath it. */
export interface Note {
  readonly app: string;
  readonly text: string;
  readonly notes: readonly string[];
}

/** One part of a section: an optional sub-heading, text, tables, notes and charts. */
export interface Part {
  readonly heading?: string;
  /** A file the part points to (a profile), before its text. */
  readonly link?: string;
  readonly text?: string;
  readonly tables: readonly Table[];
  /** Text after the tables. */
  readonly after?: string;
  readonly notes?: readonly Note[];
  /** The HTML page's charts (html-charts.ts's ids) and the Markdown's Mermaid chart, if any. */
  readonly charts?: readonly string[];
  readonly mermaid?: string;
}

export interface Section {
  readonly title: string;
  readonly intro: string;
  readonly parts: readonly Part[];
}

/** A table whose first column is left-aligned and every other right-aligned. */
const numeric = (header: readonly string[], rows: readonly string[][]): Table => ({
  header,
  align: header.map((_, i) => (i ? "r" : "l")).join(""),
  rows,
});

/** A section, or nothing when it has no part. */
const section = (title: string, intro: string, parts: readonly Part[]): Section[] =>
  parts.length > 0 ? [{ title, intro, parts }] : [];

/** --side-by-side: a table per scenario with its notes, then --against's verdicts. */
function side(analysis: Analysis): Section[] {
  if (!analysis.side) return [];
  const parts: Part[] = [...analysis.side.groups].map(([scenario, group]) => {
    const description = findScenario(scenario)?.description ?? "";
    return {
      heading: `${scenario}${description ? ` — ${description}` : ""}`,
      tables: [{ header: SIDE_HEADER, align: "llrrrrrr", rows: group.rows.map(sideCells) }],
      notes: sideNotes(group),
      charts: [`side-${scenario}`],
    };
  });
  const against = againstCells(analysis);
  if (against.length > 0) {
    parts.push({
      heading: `Against ${analysis.side.against?.ref ?? ""}`,
      text: AGAINST_INTRO,
      tables: [{ header: AGAINST_HEADER, align: "llrrrl", rows: against }],
      after: againstLine(analysis) ?? "",
    });
  }
  return section("Side by side", SIDE_INTRO, parts);
}

function production(analysis: Analysis): Section[] {
  const views = productionViews(analysis);
  const parts = views.map((v) => ({
    ...(views.length > 1 ? { heading: v.api } : {}),
    tables: [numeric(v.header, v.rows)],
  }));
  return section("Production tax", PRODUCTION_INTRO, parts);
}

function cpuCost(analysis: Analysis): Section[] {
  const views = cpuCostViews(analysis);
  const parts = views.map((v) => ({
    ...(views.length > 1 ? { heading: v.group } : {}),
    tables: [
      {
        header: CPU_COST_HEADER,
        align: "lrr",
        rows: v.rows,
        terminal: {
          caption: `${v.group}: CPU time per request, one app at a time (× the cheapest; ≈ not significant)`,
        },
      },
    ],
  }));
  return section("CPU time per request", CPU_COST_INTRO, parts);
}

function firstByte(analysis: Analysis): Section[] {
  const views = firstByteViews(analysis);
  const parts = views.map((v) => ({
    ...(views.length > 1 ? { heading: v.group } : {}),
    tables: [
      {
        header: FIRST_BYTE_HEADER,
        align: "lrrrr",
        rows: v.rows,
        terminal: { caption: `${v.group}: time to the first byte of the answer's body (oha)` },
      },
    ],
  }));
  return section("Time to first byte", FIRST_BYTE_INTRO, parts);
}

function curve(analysis: Analysis): Section[] {
  const parts = curveViews(analysis).map((v) => ({
    heading: v.scenario,
    tables: [
      {
        header: v.header,
        align: v.header.map((_, i) => (i === 0 || i >= v.header.length - 2 ? "l" : "r")).join(""),
        rows: v.rows,
      },
    ],
    charts: [`curve-rps-${v.scenario}`, `curve-p99Ms-${v.scenario}`],
  }));
  return section("Throughput curve", CURVE_INTRO, parts);
}

function rates(analysis: Analysis): Section[] {
  const { results } = analysis;
  const budget = results.manifest.settings.sloP99Ms;
  const parts = rateViews(analysis).map((v) => ({
    heading: v.scenario,
    tables: [
      { header: RATES_HEADER, align: "lrrrrrl", rows: v.rows },
      {
        header: CAPACITY_HEADER,
        align: "lrl",
        rows: v.capacity,
        terminal: {
          caption: `${v.scenario}: capacity at p99 ≤ ${budget} ms (open loop, oha --latency-correction)`,
          header: ["app", "capacity", "how"],
        },
      },
    ],
    charts: [`rates-${v.scenario}`],
  }));
  return section("Latency at offered load", ratesIntro(results), parts);
}

function startup(analysis: Analysis): Section[] {
  const rows = analysis.startup;
  if (rows.length === 0) return [];
  const table: Table = {
    header: STARTUP_HEADER,
    align: "lrrrr",
    rows: rows.map(startupCells),
    terminal: {
      caption:
        "start-up: runtime start to first correct answer; RSS when ready and after 1 s idle (median, range)",
      header: ["app", "starts (fresh)", "ready ms", "RSS ready MiB", "RSS idle MiB"],
    },
  };
  return section("Start-up", STARTUP_INTRO, [
    { tables: [table], charts: ["startup", "startup-memory"] },
  ]);
}

function workers(analysis: Analysis): Section[] {
  const rows = analysis.workers;
  if (rows.length === 0) return [];
  const caption =
    "workers: how many held connections; CPU and connections per worker, busiest first";
  const table: Table = {
    header: WORKERS_HEADER,
    align: "llrrrrr",
    rows: rows.map(workersCells),
    terminal: { caption },
  };
  return section("Workers", WORKERS_INTRO, [{ tables: [table] }]);
}

function scaling(analysis: Analysis): Section[] {
  const parts = scalingViews(analysis).map((v) => ({
    heading: v.scenario,
    tables: [
      {
        ...numeric(v.header, v.rows),
        terminal: {
          caption: `${v.scenario}: req/s by worker count (× the first; ≈ not significant)`,
        },
      },
    ],
  }));
  return section("Scaling with workers", SCALING_INTRO, parts);
}

function versions(analysis: Analysis): Section[] {
  const parts = versionViews(analysis).map((v) => ({
    heading: `${v.group} · ${v.runtime}`,
    tables: [
      {
        ...numeric(v.header, v.rows),
        terminal: {
          caption: `${v.group}: req/s by ${v.runtime} version (% of the first; ≈ not significant)`,
        },
      },
    ],
    charts: [versionChart(v).id],
    mermaid: versionMermaid(v),
  }));
  return section("Runtime versions", VERSIONS_INTRO, parts);
}

/** --calibrate (either design): the known answer, a table per scenario. */
function calibration(analysis: Analysis): Section[] {
  const parts = analysis.calibration.map((v) => ({
    text: `${calibrationCaption(v)}:`,
    tables: [
      {
        header: CALIBRATION_HEADER,
        align: "lrrrrlrr",
        rows: calibrationCells(v),
        terminal: { caption: `calibration: ${calibrationCaption(v)}` },
      },
    ],
  }));
  return section("Calibration", calibrationIntro(analysis), parts);
}

/** Samples excluded for CPU steal, each with its steal; the line above says what the rule did. */
function steal(analysis: Analysis): Section[] {
  const rows = stealRows(analysis);
  if (rows.length === 0) return [];
  const part: Part = {
    text: `${stealLine(analysis)}.`,
    tables: [{ header: STEAL_HEADER, align: "llrrrl", rows }],
  };
  return section("CPU steal", STEAL_INTRO, [part]);
}

function profiles(analysis: Analysis): Section[] {
  const parts = profileViews(analysis.results).map((v) => ({
    heading: v.title,
    ...(v.file ? { link: v.file } : {}),
    text: v.text,
    tables: v.rows.length > 0 ? [{ header: [...v.header], align: "rllrr", rows: v.rows }] : [],
  }));
  return section("Profiles", PROFILES_INTRO, parts);
}

const NOT_SUPPORTED_INTRO =
  "Apps that cannot serve a scenario of the run, and why (the contract's reason, which verify() checks against the app at every start: the day the app serves it, the check fails and the entry goes). No figure stands in for these cells.";

/** The cells the contract says an app cannot serve, each with its reason. */
function notSupported(analysis: Analysis): Section[] {
  const cells = analysis.results.unsupported ?? [];
  if (cells.length === 0) return [];
  const table: Table = {
    header: ["app", "scenario", "not supported because"],
    align: "lll",
    rows: cells.map((c) => [c.app, c.scenario, c.reason]),
    terminal: { caption: "not supported (no figure: the app cannot serve the scenario)" },
  };
  return section("Not supported", NOT_SUPPORTED_INTRO, [{ tables: [table] }]);
}

/** Every section the run has, in the order every report shows them. */
export function sections(analysis: Analysis): Section[] {
  return [
    side,
    notSupported,
    production,
    cpuCost,
    firstByte,
    curve,
    rates,
    startup,
    workers,
    scaling,
    versions,
    calibration,
    steal,
    profiles,
  ].flatMap((build) => build(analysis));
}
