// Reading a CPU profile in the Chrome DevTools format (.cpuprofile), which Node's and Bun's
// --cpu-prof write and DevTools, speedscope and VS Code open: the functions that took the most
// self time, so a report can say where a server spent its CPU without anyone opening a tool.

/** The parts of a .cpuprofile this reads (DevTools' Profiler.Profile). */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: {
      readonly functionName: string;
      readonly url: string;
      readonly lineNumber: number;
      readonly columnNumber: number;
    };
  }[];
  readonly startTime: number;
  readonly endTime: number;
  /** The node id sampled at each tick. */
  readonly samples: readonly number[];
  /** Microseconds since the previous sample (the first: since startTime). */
  readonly timeDeltas: readonly number[];
}

/** The sampling interval benchmark.sh asks every runtime for (--cpu-prof-interval), µs. */
export const PROFILE_INTERVAL_US = 1000;

export interface HotFunction {
  /** The function's name, or DevTools' label for a pseudo-frame such as "(garbage collector)". */
  readonly function: string;
  /** file:line (1-based), shortened to the package or the repository path; "" when native. */
  readonly location: string;
  readonly samples: number;
  /** Share of the busy samples (all samples but "(idle)"). */
  readonly percent: number;
}

export interface ProfileSummary {
  /** Time the profile covers, ms. */
  readonly totalMs: number;
  readonly samples: number;
  /** Samples of "(idle)": the runtime waiting for work. */
  readonly idleSamples: number;
  /**
   * Share of the covered time the samples account for (samples × interval / total). Near 1 for
   * Node's sampler; far below 1 for one that only records while JavaScript runs (Bun's: its
   * native HTTP work never shows up), which the report must say.
   */
  readonly coverage: number;
  readonly top: HotFunction[];
}

export class ProfileError extends Error {}

/** Checks the shape it relies on; throws ProfileError naming what is missing. */
export function readCpuProfile(text: string): CpuProfile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ProfileError(`not JSON: ${(error as Error).message}`);
  }
  const p = value as Partial<CpuProfile> | null;
  if (!p || !Array.isArray(p.nodes) || p.nodes.length === 0) throw new ProfileError("no nodes");
  if (!Array.isArray(p.samples) || !Array.isArray(p.timeDeltas)) {
    throw new ProfileError("no samples/timeDeltas");
  }
  if (p.samples.length !== p.timeDeltas.length) {
    throw new ProfileError(`${p.samples.length} samples but ${p.timeDeltas.length} timeDeltas`);
  }
  if (typeof p.startTime !== "number" || typeof p.endTime !== "number") {
    throw new ProfileError("no startTime/endTime");
  }
  for (const node of p.nodes) {
    if (typeof node?.id !== "number" || typeof node.callFrame?.functionName !== "string") {
      throw new ProfileError("a node without id or callFrame");
    }
  }
  return p as CpuProfile;
}

/** "file:///x/node_modules/.bun/hono@4/node_modules/hono/dist/a.js" → "hono/dist/a.js". */
export function shortUrl(url: string, root = ""): string {
  const path = url.replace(/^file:\/\//, "");
  const nm = path.lastIndexOf("/node_modules/");
  if (nm !== -1) return path.slice(nm + "/node_modules/".length);
  if (root && path.startsWith(`${root}/`)) return path.slice(root.length + 1);
  return path;
}

/**
 * Samples per function ("self" samples: the function was on top of the stack). Functions are
 * keyed by name and place, so a function's many call sites add up. Counting samples, rather than
 * charging each the gap to the next as DevTools does, keeps a sampler that skips native work
 * from charging that work to whichever JavaScript ran before it. The top `limit`, idle excluded.
 */
export function summarizeProfile(
  profile: CpuProfile,
  limit = 10,
  root = "",
  intervalUs = PROFILE_INTERVAL_US,
): ProfileSummary {
  const frameOf = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const counts = new Map<string, { function: string; location: string; samples: number }>();
  let idleSamples = 0;
  for (const id of profile.samples) {
    const frame = frameOf.get(id);
    if (!frame) throw new ProfileError(`a sample of node ${id}, which the profile does not have`);
    const name = frame.functionName || "(anonymous)";
    if (name === "(idle)") {
      idleSamples++;
      continue;
    }
    const location = frame.url ? `${shortUrl(frame.url, root)}:${frame.lineNumber + 1}` : "";
    const key = `${name}\u0000${location}`;
    const entry = counts.get(key) ?? { function: name, location, samples: 0 };
    entry.samples++;
    counts.set(key, entry);
  }
  const totalUs = Math.max(0, profile.endTime - profile.startTime);
  const busy = profile.samples.length - idleSamples;
  const top = [...counts.values()]
    .sort((a, b) => b.samples - a.samples || a.function.localeCompare(b.function))
    .slice(0, limit)
    .map((e) => ({ ...e, percent: (100 * e.samples) / busy }));
  return {
    totalMs: totalUs / 1000,
    samples: profile.samples.length,
    idleSamples,
    coverage: totalUs > 0 ? Math.min(1, (profile.samples.length * intervalUs) / totalUs) : 0,
    top,
  };
}
