// The smallest Bun.serve WebSocket server there is, to measure ws-load's ceiling against (README):
// /ws/echo sends every message back as it came; /ws/broadcast publishes it to the route's other
// sockets. Listens on 127.0.0.1:PORT (the first argument).
//   taskset -c 0 bun tools/ws-load/bench/echo-server.ts 9100

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error("usage: bun tools/ws-load/bench/echo-server.ts PORT");
  process.exit(2);
}

const server = Bun.serve<{ broadcast: boolean }>({
  hostname: "127.0.0.1",
  port,
  fetch(request, server) {
    const path = new URL(request.url).pathname;
    if (path !== "/ws/echo" && path !== "/ws/broadcast") {
      return new Response("not found", { status: 404 });
    }
    if (server.upgrade(request, { data: { broadcast: path === "/ws/broadcast" } })) return;
    return new Response("upgrade required", { status: 426 });
  },
  websocket: {
    open(ws) {
      if (ws.data.broadcast) ws.subscribe("broadcast");
    },
    message(ws, message) {
      if (ws.data.broadcast) ws.publish("broadcast", message);
      else ws.send(message);
    },
  },
});

console.error(`echo-server: listening on ${server.hostname}:${server.port} (pid ${process.pid})`);
