// The same echo and broadcast routes as echo-server.ts on the node-bare app's stack (node:http
// and the ws package), a server that spends more per message than Bun's: with it the server,
// not ws-load, should be what saturates (README, "Ceiling"). ws is the project's own (resolved
// from packages/contract, which depends on it).
//   taskset -c 0 apps/node-bare/node_modules/.bin/node tools/ws-load/bench/node-echo-server.mjs 9100

import { createServer } from "node:http";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error("usage: node tools/ws-load/bench/node-echo-server.mjs PORT");
  process.exit(2);
}
const contract = fileURLToPath(new URL("../../../packages/contract/package.json", import.meta.url));
const { WebSocketServer } = createRequire(contract)("ws");

const server = createServer((_request, response) => {
  response.writeHead(404).end("not found");
});
const routes = new Map([
  ["/ws/echo", new WebSocketServer({ noServer: true })],
  ["/ws/broadcast", new WebSocketServer({ noServer: true })],
]);
server.on("upgrade", (request, socket, head) => {
  const wss = routes.get(request.url);
  if (!wss) return socket.destroy();
  wss.handleUpgrade(request, socket, head, (ws) => {
    ws.on("error", () => ws.terminate());
    ws.on("message", (data, isBinary) => {
      if (request.url === "/ws/echo") return ws.send(data, { binary: isBinary });
      for (const other of wss.clients) if (other !== ws) other.send(data, { binary: isBinary });
    });
  });
});
server.listen(port, "127.0.0.1", () => {
  console.error(`node-echo-server: listening on 127.0.0.1:${port} (node ${process.version})`);
});
