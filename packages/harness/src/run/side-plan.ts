// --side-by-side: the run's pairs (side/pairing.ts) from its rows, which become the rows of
// results.json, the pairs recorded in the manifest.

import { planPairs, type SidePair, SLOT_ADDRESSES } from "../side/pairing.ts";
import { newResults } from "./record.ts";
import type { Run } from "./session.ts";

/**
 * --side-by-side: the pairs of the run (side/pairing.ts) from its rows, which become the
 * rows of results.json (an A/A's second row joins them) with the pairs in the manifest.
 */
export function planSide(run: Run): SidePair[] {
  const { side, builds, calibrate } = run.options;
  const perApp = builds.length > 0 || calibrate || side?.against !== undefined;
  const plan = planPairs(run.options.apps, perApp, side?.reference);
  const known = new Map(run.recorder.results.apps.map((a) => [a.name, a]));
  run.options = { ...run.options, apps: plan.rows };
  const fresh = newResults(run.options, run.pinning);
  const r = run.recorder.results;
  r.apps = fresh.apps.map((a) => known.get(a.name) ?? a);
  r.manifest.settings.apps = fresh.manifest.settings.apps;
  const against = plan.rows.find((a) => a.checkout)?.checkout;
  r.manifest.settings.sideBySide = {
    pairs: plan.pairs.map((p) => [p.reference.name, p.app.name]),
    addresses: [...SLOT_ADDRESSES],
    ...(against ? { against: { ref: against.ref, commit: against.commit } } : {}),
    ...(side?.threshold !== undefined ? { threshold: side.threshold } : {}),
  };
  run.recorder.save();
  return plan.pairs;
}
