import { createApp } from "@bench/elysia-app";
import { node } from "@elysiajs/node";

// The rate limiter's key. @elysiajs/node's server.requestIP() throws ("This adapter doesn't support
// Bun requestIP method"); the request it hands Elysia is srvx's, whose `ip` is the socket's remote
// address (X-Forwarded-For only with srvx's trustProxy, which is off).
const clientAddress = (request: Request) => (request as Request & { ip?: string }).ip;

export const app = createApp({ adapter: node() }, { clientAddress });
