// The reports' "Profiles" section (--profile): per app and scenario, a link to the .cpuprofile
// and its hottest functions, so "why is X slower on echo" is answered in the report itself.
// One model, rendered by markdown.ts and html.ts.

import type { Results } from "../results/schema.ts";
import { fmt, pct } from "./format.ts";

// Stryker disable StringLiteral: the section's prose, read by people; no figure or verdict comes from it
export const PROFILES_INTRO =
  "One extra trial per app and scenario ran with the runtime's CPU profiler on (--profile), in " +
  "a fresh process, after the measured rounds. A profiler slows a server, so these trials are " +
  "not in any figure above. Each profile opens in Chrome DevTools (Performance → Load profile), " +
  "speedscope or VS Code. The tables list the functions with the most self samples (the function " +
  "itself was running), as a share of the samples in which the runtime was not idle.";
// Stryker restore StringLiteral

/** Below this share of the time seen, the sampler missed most of the work: say so. */
const LOW_COVERAGE = 0.5;

export interface ProfileView {
  readonly title: string;
  /** The .cpuprofile, relative to the report (which sits next to results.json). */
  readonly file?: string;
  /** What the profile is, or why there is none: one paragraph. */
  readonly text: string;
  readonly header: readonly string[];
  readonly rows: string[][];
}

export function profileViews(results: Results): ProfileView[] {
  const header = ["#", "function", "where", "self samples", "share"];
  return (results.profiles ?? []).map((p) => {
    const title = `${p.app} · ${p.scenario}`;
    const trial =
      p.rps === undefined
        ? ""
        : `Profiled trial: ${fmt(p.rps)} req/s, p99 ${fmt(p.p99Ms ?? Number.NaN, 1)} ms (not counted). `;
    const s = p.summary;
    if (!s || p.unavailable) {
      return {
        title,
        text: `${trial}No profile: ${p.unavailable ?? "none recorded"}.`,
        header,
        rows: [],
      };
    }
    const busy = s.samples - s.idleSamples;
    const seen =
      s.coverage < LOW_COVERAGE
        ? ` The sampler saw only ${pct(s.coverage * 100)} of the time: it samples only while ` +
          "the JavaScript VM runs, so the runtime's native work (its HTTP server, I/O) is mostly " +
          "missing from this list."
        : "";
    const text =
      `${trial}${fmt(s.samples)} samples over ${fmt(s.totalMs / 1000, 1)} s, ${fmt(busy)} of them ` +
      `busy (not idle).${seen}`;
    const rows = s.top.map((f, i) => [
      String(i + 1),
      f.function,
      f.location || "(native)",
      fmt(f.samples),
      pct(f.percent, 1),
    ]);
    return { title, ...(p.file ? { file: p.file } : {}), text, header, rows };
  });
}
