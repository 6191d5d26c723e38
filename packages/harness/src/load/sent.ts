// The request a scenario sends, made concrete for one app: the etag scenario's If-None-Match is
// the app's own current ETag (each framework computes its own), read once the app is verified.

import type { Scenario } from "@bench/contract";
import { currentEtag } from "@bench/contract/check";

/** The scenario as the load generators send it to the app on host:port, or why it cannot be. */
export async function scenarioAsSent(
  scenario: Scenario,
  port: number,
  host = "127.0.0.1",
): Promise<Scenario | string> {
  if (!scenario.conditional) return scenario;
  let etag: string | undefined;
  try {
    etag = await currentEtag(host, port, scenario.path, scenario.headers ?? {});
  } catch (error) {
    return `could not read the ETag of ${scenario.path}: ${String(error)}`;
  }
  if (etag === undefined) return `${scenario.path} answered without an ETag`;
  return { ...scenario, headers: { ...scenario.headers, "if-none-match": etag } };
}
