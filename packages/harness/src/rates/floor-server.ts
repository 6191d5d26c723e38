// The generator's floor (--rates search): a server that does nothing, so whatever latency the
// load generator measures against it at a rate is the generator's own (and the loopback's).
// Bun serves a static Response from native code without running JavaScript per request: the
// fastest target a fresh machine with Bun can have. It answers every method and path with the
// bytes and content type it is given (the app's own answer to the scenario), and prints its port.
//
//   bun floor-server.ts <body file> <content type>

const [bodyFile, contentType] = process.argv.slice(2);
if (!bodyFile || !contentType) {
  console.error("usage: bun floor-server.ts <body file> <content type>");
  process.exit(2);
}
const body = await Bun.file(bodyFile).bytes();
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  routes: { "/*": new Response(body, { headers: { "content-type": contentType } }) },
});
console.log(server.port);
const quit = () => {
  server.stop(true);
  process.exit(0);
};
process.on("SIGTERM", quit);
// The harness holds the other end of stdin: when it dies, even by SIGKILL, this goes too.
process.stdin.on("end", quit);
process.stdin.on("close", quit);
process.stdin.resume();
