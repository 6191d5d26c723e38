// What mutation testing covers: every module that computes a number, a verdict, a plan or a
// verification, each in a group with the unit tests that can notice a change in it. A group is
// one StrykerJS run; each mutant runs only its group's tests (bun test --bail), which is what
// keeps the whole run inside CI's budget: the end-to-end tests that start apps are not here.
// Test files are named as docs/testing.md says: <module>.test.ts holds the in-process tests of
// src/**/<module>.ts, and only those are listed here; <subject>.e2e.test.ts starts processes.

export interface MutationGroup {
  readonly name: string;
  /** The workspace package the group's files live in: Stryker runs there. */
  readonly package: "harness" | "contract";
  /** Source files (relative to the package) whose mutants this group tests. */
  readonly mutate: readonly string[];
  /** The unit test files (relative to the package) run against each mutant. */
  readonly tests: readonly string[];
}

export const GROUPS: readonly MutationGroup[] = [
  {
    name: "stats",
    package: "harness",
    mutate: ["src/analysis/stats.ts", "src/analysis/estimate.ts", "src/analysis/verdicts.ts"],
    // compare.test.ts reads verdicts.ts's regression gate through --compare's verdicts.
    tests: [
      "test/stats.test.ts",
      "test/estimate.test.ts",
      "test/verdicts.test.ts",
      "test/compare.test.ts",
    ],
  },
  {
    name: "sessions",
    package: "harness",
    // A history of sessions: the figures across sessions, the newest session's check, change
    // points (Otava's method) and Kalibera & Jones's rounds per session. Their simulations are
    // skipped here (BENCH_MUTATION=1); the exact values against scipy, Otava and libkalibera count.
    mutate: [
      "src/analysis/sessions.ts",
      "src/analysis/change-points.ts",
      "src/analysis/allocation.ts",
    ],
    tests: ["test/sessions.test.ts", "test/change-points.test.ts", "test/allocation.test.ts"],
  },
  {
    name: "judge",
    package: "harness",
    mutate: ["src/load/judge.ts", "src/load/parse.ts", "src/load/parse-h2load.ts"],
    tests: ["test/judge.test.ts", "test/parse.test.ts", "test/parse-h2load.test.ts"],
  },
  {
    name: "analysis",
    package: "harness",
    mutate: [
      "src/analysis/analysis.ts",
      "src/analysis/trial-flags.ts",
      "src/analysis/comparison.ts",
      "src/report/summary.ts",
      "src/report/compare.ts",
      "src/report/text-table.ts",
      "src/report/first-byte.ts",
    ],
    tests: [
      "test/text-table.test.ts",
      "test/trial-flags.test.ts",
      "test/analysis.test.ts",
      "test/summary.test.ts",
      "test/compare.test.ts",
      "test/cpu-cost.test.ts",
      "test/first-byte.test.ts",
    ],
  },
  {
    name: "side",
    package: "harness",
    // The side-by-side mode's decisions: its plan, a sample's judgement, the analysis and
    // what renders it. pair-load.ts and pair-run.ts start processes: side-by-side.e2e.test.ts.
    mutate: [
      "src/side/pairing.ts",
      "src/side/pair-checks.ts",
      "src/analysis/ratios.ts",
      "src/report/side-by-side.ts",
      "src/report/cpu-cost.ts",
      "src/report/bmf.ts",
    ],
    tests: [
      "test/pairing.test.ts",
      "test/pair-checks.test.ts",
      "test/ratios.test.ts",
      "test/cpu-cost.test.ts",
      "test/side-by-side.test.ts",
      "test/bmf.test.ts",
    ],
  },
  {
    name: "rates",
    package: "harness",
    mutate: [
      "src/rates/rates.ts",
      "src/rates/open-loop.ts",
      "src/rates/search.ts",
      "src/analysis/rate-levels.ts",
      "src/analysis/search-levels.ts",
    ],
    // These modules' tests, and two filed with another module that read these too: oha's
    // rate-mode captures (parse, through rateVerdict) and the search in the report
    // (search-table, through the search's levels).
    tests: [
      "test/rates.test.ts",
      "test/rate-levels.test.ts",
      "test/search.test.ts",
      "test/search-levels.test.ts",
      "test/open-loop.test.ts",
      "test/parse.test.ts",
      "test/search-table.test.ts",
    ],
  },
  {
    name: "plan",
    package: "harness",
    mutate: [
      "src/common/plan.ts",
      "src/analysis/groups.ts",
      "src/load/measure.ts",
      "src/analysis/startup.ts",
    ],
    tests: [
      "test/plan.test.ts",
      "test/groups.test.ts",
      "test/measure.test.ts",
      "test/startup.test.ts",
    ],
  },
  {
    name: "rounds",
    package: "harness",
    // How many rounds a run takes: --precision's widths and the stop rule. The command line's
    // own rules (flags, command, forms, options) are held by benchmark.sh's refusals in
    // benchmark.e2e.test.ts and by options.test.ts, not here: most of their mutants are
    // messages only the end-to-end runs read.
    mutate: ["src/run/precision.ts", "src/run/rounds.ts"],
    tests: ["test/precision.test.ts", "test/rounds.test.ts"],
  },
  {
    name: "steal",
    package: "harness",
    // The CPU steal rule, the re-takes it asks for, and what the reports say of it.
    mutate: ["src/analysis/steal.ts", "src/run/retake.ts", "src/report/steal-table.ts"],
    tests: ["test/steal.test.ts", "test/retake.test.ts", "test/steal-table.test.ts"],
  },
  {
    name: "history",
    package: "harness",
    // What a run records in the history and what the history says: the settings and testbed,
    // a session's estimates, the check against earlier sessions, the view every page renders,
    // a campaign's plan, and the pages. The stores (sqlite-history.ts, postgres-history.ts) are
    // I/O that sqlite-history.test.ts and history.e2e.test.ts run for real.
    mutate: [
      "src/analysis/settings.ts",
      "src/analysis/session-estimates.ts",
      "src/history/recording.ts",
      "src/history/view.ts",
      "src/run/campaign.ts",
      "src/report/history-report.ts",
    ],
    tests: [
      "test/settings.test.ts",
      "test/session-estimates.test.ts",
      "test/recording.test.ts",
      "test/view.test.ts",
      "test/campaign.test.ts",
      "test/history-report.test.ts",
      "test/history-cli.test.ts",
    ],
  },
  {
    name: "launch",
    package: "harness",
    // The decisions only: runtimes.ts (npm, installs) and launch.ts (spawning, stopping) are
    // process control that the end-to-end tests (install, start, versions, workers) cover.
    mutate: ["src/runtimes/runtime-versions.ts", "src/apps/readiness.ts"],
    tests: ["test/runtime-versions.test.ts", "test/readiness.test.ts"],
  },
  {
    name: "reports",
    package: "harness",
    mutate: [
      "src/analysis/scaling.ts",
      "src/report/workers.ts",
      "src/report/versions.ts",
      "src/report/production-table.ts",
      "src/report/curve.ts",
      "src/report/rates-table.ts",
      "src/report/search-table.ts",
      "src/report/startup-table.ts",
      "src/report/calibration-table.ts",
      "src/report/profiles-table.ts",
    ],
    // One test file per module, and the pieces of the former report-text-side.test.ts
    // (markdown, html, extras), which read the calibration's intro through the side-by-side
    // report.
    tests: [
      "test/scaling.test.ts",
      "test/workers.test.ts",
      "test/versions.test.ts",
      "test/rates-table.test.ts",
      "test/search-table.test.ts",
      "test/startup-table.test.ts",
      "test/calibration-table.test.ts",
      "test/profiles-table.test.ts",
      "test/production-table.test.ts",
      "test/curve.test.ts",
      "test/markdown.test.ts",
      "test/html.test.ts",
      "test/html-charts.test.ts",
      "test/extras.test.ts",
    ],
  },
  {
    name: "report-text",
    package: "harness",
    // html-assets.ts (style sheet, colours, Chart.js, page script) is static: the headless
    // Chromium test in report.e2e.test.ts checks what it draws.
    mutate: [
      "src/report/markdown.ts",
      "src/report/html.ts",
      "src/report/html-charts.ts",
      "src/report/sections.ts",
      "src/report/format.ts",
      "src/report/mermaid.ts",
      "src/report/readme.ts",
      "src/report/extras.ts",
    ],
    tests: [
      "test/format.test.ts",
      "test/markdown.test.ts",
      "test/html.test.ts",
      "test/html-charts.test.ts",
      "test/mermaid.test.ts",
      "test/readme.test.ts",
      "test/extras.test.ts",
      "test/production-table.test.ts",
      "test/curve.test.ts",
      // The CPU steal section, as sections.ts and markdown.ts render it.
      "test/steal-table.test.ts",
      // The time to first byte section, likewise.
      "test/first-byte.test.ts",
    ],
  },
  {
    name: "contract",
    package: "contract",
    // violation.ts holds mediaTypeOf, which verify.ts's cases judge every answer with.
    mutate: [
      "src/check/verify.ts",
      "src/check/violation.ts",
      "src/check/hostile.ts",
      "src/check/cases.ts",
      "src/serve/validate.ts",
      "src/serve/body.ts",
      "src/spec/streams.ts",
      "src/check/stream-cases.ts",
      "src/spec/http2.ts",
      "src/check/h2-checks.ts",
      "src/serve/head.ts",
      "src/check/abuse-checks.ts",
    ],
    // verify.test.ts and hostile.test.ts wait out timeouts and spawn the CLI; lenient.test.ts
    // breaks every rule of verify(), checkCases() and hostile() with fast stand-ins instead.
    tests: [
      "test/body-validate.test.ts",
      "test/lenient.test.ts",
      "test/contract.test.ts",
      "test/streams.test.ts",
      // checkOverTls against live HTTPS stand-ins (a certificate made by openssl).
      "test/tls.test.ts",
      // checkOverH2, the HTTP/2 fetcher and the apps that cannot serve HTTP/2, against live
      // stand-ins (Fastify over node:http2, Bun.serve, a bare node:http2 server).
      "test/http2.test.ts",
      // The stalled handshakes and the reset storm verify() runs, against live stand-ins.
      "test/abuse-checks.test.ts",
    ],
  },
  {
    name: "database",
    package: "contract",
    mutate: [
      "src/spec/db.ts",
      "src/check/db-checks.ts",
      "src/check/db-probes.ts",
      "src/stores/world-store.ts",
      "src/stores/sqlite-store.ts",
      "src/stores/selector.ts",
      "src/stores/sqlite.ts",
    ],
    // In-process stand-ins on SQLite files, each breaking one rule of the database contract.
    tests: ["test/db.test.ts"],
  },
  {
    name: "tooling",
    package: "harness",
    mutate: ["mutation/score.ts", "mutation/survivors.ts"],
    tests: ["test/mutation.test.ts"],
  },
];
