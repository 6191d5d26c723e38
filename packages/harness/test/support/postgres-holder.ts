// A stand-in harness for postgres.e2e.test.ts: starts a server, prints its folder, and waits to be
// killed (with SIGKILL, which lets it clean up nothing).
import { startPostgres } from "../../src/apps/postgres-server.ts";

const server = await startPostgres();
process.stdout.write(`${server.dir}\n`);
await new Promise(() => setInterval(() => {}, 1000));
