// Waiting for a second socket of an app: an app given the run's certificate opens its TLS port
// beside its plain one, and on Node after importing node:https, so the plain port's first
// answer (readiness.ts) does not say the TLS port is there yet.

import { connect } from "node:net";

const POLL_MS = 5;

/** One TCP connection attempt: true once it is accepted (and closed again). */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Whether host:port accepts a connection within `timeoutMs`, asked every few ms. */
export async function portOpen(host: string, port: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await accepts(host, port)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
