// What decides what a run measured, defined once: the settings two runs must share for their
// figures to compare (--compare refuses runs that differ in one; the history never puts two
// such runs in one series), and the testbed a run measured on (the history never pools two).
// A run's rounds are not among the settings: they decide how sure a figure is, not what it is.

import { createHash } from "node:crypto";
import type { Results } from "../results/schema.ts";
import { connectionsText, workersText } from "./groups.ts";

type Manifest = Results["manifest"];

/** One setting: its name as a refusal quotes it, and its value in a run. */
export interface Setting {
  readonly name: string;
  readonly of: (m: Manifest) => string;
}

/** The mode: one app at a time, or side by side (against another commit counts as side by side). */
export const modeOf = (m: Manifest): "one at a time" | "side by side" =>
  m.settings.sideBySide ? "side by side" : "one at a time";

/** The database scenarios' engine; "none" for a run without them. */
export const engineOf = (m: Manifest): string => m.database?.engine ?? "none";

/** Every setting that decides what a run measured, in the order refusals list them. */
export const MEASURED: readonly Setting[] = [
  { name: "mode", of: modeOf },
  { name: "tool", of: (m) => `${m.tool.name} ${m.tool.version}` },
  { name: "connections", of: (m) => connectionsText(m.settings) },
  { name: "server processes", of: (m) => workersText(m.settings) },
  { name: "samples per process", of: (m) => String(m.settings.samples ?? 1) },
  { name: "duration", of: (m) => `${m.settings.durationSec} s` },
  { name: "warm-up", of: (m) => `${m.settings.warmupSec} s` },
  { name: "keep-alive", of: (m) => (m.settings.keepAlive ? "on" : "off") },
  {
    name: "pinning",
    of: ({ pinning: p }) =>
      p.enabled ? `server CPUs ${p.serverCpus ?? "?"}, load CPUs ${p.loadCpus ?? "?"}` : "off",
  },
  { name: "database engine", of: engineOf },
];

/** The settings of a run, by name. */
export function settingsOf(m: Manifest): Record<string, string> {
  return Object.fromEntries(MEASURED.map((s) => [s.name, s.of(m)]));
}

/** "duration: 1 s vs 2 s" for every measured setting two runs differ in. */
export function settingMismatches(a: Manifest, b: Manifest): string[] {
  return MEASURED.flatMap((s) =>
    s.of(a) === s.of(b) ? [] : [`${s.name}: ${s.of(a)} vs ${s.of(b)}`],
  );
}

const shortHash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 10);

/** The settings as one key: two runs with the same key measured the same thing. */
export const settingsKey = (m: Manifest): string =>
  shortHash(JSON.stringify(MEASURED.map((s) => s.of(m))));

/**
 * Where a run measured: the server's machine (another host's with --server-host). The kernel
 * is recorded but is not part of the identity, since it changes with every boot of a VM;
 * memory is rounded to whole GiB; a run from before virtualization was recorded has
 * "unrecorded" there, so it is never pooled with a run that recorded it.
 */
export interface Testbed {
  /** A short stable key of the identity below. */
  readonly id: string;
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly virtualization: string;
  readonly kernel: string;
}

export function testbedOf(m: Manifest): Testbed {
  const machine = m.serverHost?.machine ?? m.machine;
  const identity = {
    cpuModel: machine.cpuModel,
    cores: machine.cores,
    memoryGiB: Math.round(machine.memoryGiB),
    virtualization: machine.virtualization ?? "unrecorded",
  };
  return { id: shortHash(JSON.stringify(identity)), ...identity, kernel: machine.kernel };
}

/** "AMD EPYC, 2 cores, 24 GiB, kvm": a testbed as a reader names it. */
export const testbedLabel = (t: Omit<Testbed, "kernel" | "id">): string =>
  `${t.cpuModel}, ${t.cores} cores, ${t.memoryGiB} GiB, ${t.virtualization}`;
