// What decides what a run measured (analysis/settings.ts): the list --compare refuses on and
// the history keeps series apart by, and the testbed's identity.

import { describe, expect, test } from "bun:test";
import { runMismatches } from "../src/analysis/comparison.ts";
import {
  engineOf,
  MEASURED,
  modeOf,
  settingMismatches,
  settingsKey,
  settingsOf,
  testbedLabel,
  testbedOf,
} from "../src/analysis/settings.ts";
import type { Results } from "../src/results/schema.ts";
import { syntheticRun } from "./support/synthetic.ts";

type Manifest = Results["manifest"];

const base = syntheticRun(["bun-bare"], ["api"], []).manifest;
const withSettings = (s: Partial<Manifest["settings"]>): Manifest => ({
  ...base,
  settings: { ...base.settings, ...s },
});

describe("the measured settings", () => {
  test("every one has a name and a value; the list is the issue's", () => {
    expect(MEASURED.map((s) => s.name)).toEqual([
      "mode",
      "tool",
      "connections",
      "server processes",
      "samples per process",
      "duration",
      "warm-up",
      "keep-alive",
      "pinning",
      "database engine",
    ]);
    expect(settingsOf(base)).toEqual({
      mode: "one at a time",
      tool: "wrk 4.2.0",
      connections: "64",
      "server processes": "1 process per app",
      "samples per process": "1",
      duration: "5 s",
      "warm-up": "2 s",
      "keep-alive": "on",
      pinning: "server CPUs 0, load CPUs 1",
      "database engine": "none",
    });
  });

  test("keep-alive off, pinning off or without its CPUs recorded; the key is ten hex digits", () => {
    expect(settingsOf(withSettings({ keepAlive: false }))["keep-alive"]).toBe("off");
    const pinned = (pinning: Manifest["pinning"]) => settingsOf({ ...base, pinning }).pinning;
    expect(pinned({ enabled: false })).toBe("off");
    expect(pinned({ enabled: true })).toBe("server CPUs ?, load CPUs ?");
    expect(settingsKey(base)).toMatch(/^[0-9a-f]{10}$/);
  });

  test("mode and engine", () => {
    const side = withSettings({ sideBySide: { pairs: [["a", "b"]], addresses: [] } });
    expect(modeOf(side)).toBe("side by side");
    expect(
      engineOf({ ...base, database: { engine: "postgresql", clients: {}, settings: {} } }),
    ).toBe("postgresql");
    expect(engineOf({ ...base, database: { engine: "sqlite", clients: {}, settings: {} } })).toBe(
      "sqlite",
    );
  });

  test("a change of any one is a mismatch and a new key; rounds and apps are neither", () => {
    const changed: Manifest[] = [
      withSettings({ durationSec: 2 }),
      withSettings({ warmupSec: 8 }),
      withSettings({ connections: 50 }),
      withSettings({ samples: 2 }),
      withSettings({ workers: 2 }),
      withSettings({ keepAlive: false }),
      withSettings({ sideBySide: { pairs: [], addresses: [] } }),
      { ...base, tool: { ...base.tool, version: "4.2.1" } },
      { ...base, pinning: { enabled: false, note: "--no-pin" } },
      { ...base, database: { engine: "postgresql", clients: {}, settings: {} } },
    ];
    for (const m of changed) {
      expect(settingMismatches(base, m)).toHaveLength(1);
      expect(settingsKey(m)).not.toBe(settingsKey(base));
    }
    const same = withSettings({ trials: 40, apps: ["node-bare"], argv: ["-n", "40"] });
    expect(settingMismatches(base, same)).toEqual([]);
    expect(settingsKey(same)).toBe(settingsKey(base));
    expect(settingMismatches(base, withSettings({ durationSec: 2 }))).toEqual([
      "duration: 5 s vs 2 s",
    ]);
  });

  test("--compare refuses runs of different database engines (exit 2 in report/cli.ts)", () => {
    const sqlite: Results = {
      ...syntheticRun(["bun-bare"], ["db"], []),
      manifest: { ...base, database: { engine: "sqlite", clients: {}, settings: {} } },
    };
    const postgres: Results = {
      ...sqlite,
      manifest: { ...base, database: { engine: "postgresql", clients: {}, settings: {} } },
    };
    expect(runMismatches(sqlite, postgres)).toEqual(["database engine: sqlite vs postgresql"]);
    expect(runMismatches(sqlite, sqlite)).toEqual([]);
  });
});

describe("the testbed", () => {
  const machine = base.machine;

  test("CPU, cores, memory rounded and virtualization; the kernel is recorded, not identity", () => {
    const a = testbedOf({ ...base, machine: { ...machine, virtualization: "kvm" } });
    const rebooted = testbedOf({
      ...base,
      machine: { ...machine, virtualization: "kvm", kernel: "Linux 6.99", memoryGiB: 8.2 },
    });
    expect(rebooted.id).toBe(a.id);
    expect(rebooted.kernel).toBe("Linux 6.99");
    expect(a).toMatchObject({
      cpuModel: "Test CPU",
      cores: 2,
      memoryGiB: 8,
      virtualization: "kvm",
    });
    for (const other of [
      { cpuModel: "Other CPU" },
      { cores: 4 },
      { memoryGiB: 16 },
      { virtualization: "none" },
    ]) {
      const t = testbedOf({ ...base, machine: { ...machine, virtualization: "kvm", ...other } });
      expect(t.id).not.toBe(a.id);
    }
    expect(testbedLabel(a)).toBe("Test CPU, 2 cores, 8 GiB, kvm");
  });

  test("a run from before virtualization was recorded is a testbed of its own", () => {
    const old = testbedOf(base);
    expect(old.virtualization).toBe("unrecorded");
    expect(old.id).not.toBe(
      testbedOf({ ...base, machine: { ...machine, virtualization: "kvm" } }).id,
    );
  });

  test("across two hosts, the server's machine", () => {
    const serverHost = {
      name: "far",
      address: "10.0.0.2",
      machine: { ...machine, cpuModel: "Far CPU", virtualization: "none" },
      rttMs: 0.2,
      linkMbps: {},
      git: { commit: "x", dirty: false },
    } as unknown as NonNullable<Manifest["serverHost"]>;
    expect(testbedOf({ ...base, serverHost }).cpuModel).toBe("Far CPU");
  });
});
