// Ports the system gives (port 0): two runs of a test file at once (mutation testing's) never
// collide on them, as they did on fixed ones.

import { type AddressInfo, createServer, type Server } from "node:net";

/** Listens on a port the system gives, on `host`, and says which. */
export async function listening(server: Server, host = "127.0.0.1"): Promise<number> {
  await new Promise<void>((listened) => server.listen(0, host, listened));
  return (server.address() as AddressInfo).port;
}

/**
 * A port nothing listens on: one the system just gave out and took back (it does not hand the
 * same port out again at once).
 */
export async function closedPort(host = "127.0.0.1"): Promise<number> {
  const server = createServer();
  const port = await listening(server, host);
  await new Promise((closed) => server.close(closed));
  return port;
}

/**
 * A base for the fixed ports of a test whose code under test reaches a TLS port at port + 1000
 * (tlsPort), which port 0 cannot give: ten ports from a place this process's id picks, so that
 * two runs at once (mutation testing's) almost never share one. Within 20000–29999 (+1000 for
 * TLS): below the ephemeral range, above the apps' 3000–5014.
 */
export function portBase(pid = process.pid): number {
  return 20_000 + (pid % 900) * 10;
}
