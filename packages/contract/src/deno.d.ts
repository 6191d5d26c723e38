// The part of Deno's API this project calls, for `tsc` (which knows Bun's and Node's types from
// @types/*, but has no package for Deno's; `deno types` prints 30,000 lines of it). Only what the
// deno-* apps and the contract use, with the signatures of Deno 2.9's lib.deno.d.ts.

declare namespace Deno {
  interface NetAddr {
    readonly transport: "tcp" | "udp";
    readonly hostname: string;
    readonly port: number;
  }
  interface ServeOptions {
    port?: number;
    hostname?: string;
    /** Linux: several processes may listen on the port (SO_REUSEPORT); needs --unstable-net. */
    reusePort?: boolean;
    onListen?: (localAddr: NetAddr) => void;
    onError?: (error: unknown) => Response | Promise<Response>;
  }
  interface HttpServer {
    /** Where it listens (the port the system picked for port 0). */
    readonly addr: NetAddr;
    readonly finished: Promise<void>;
    shutdown(): Promise<void>;
  }
  /** The handler's second argument: the rate limiters key on the client's remoteAddr. */
  interface ServeHandlerInfo {
    /** The client's end of the connection. */
    readonly remoteAddr: NetAddr;
    /** Settles when the response has been sent (or the request aborted). */
    readonly completed: Promise<void>;
  }
  function serve(
    options: ServeOptions,
    handler: (request: Request, info: ServeHandlerInfo) => Response | Promise<Response>,
  ): HttpServer;

  interface UpgradeWebSocketOptions {
    protocol?: string;
    /** Seconds without a message before Deno pings, and closes when no pong comes; 120. */
    idleTimeout?: number;
  }
  /** Throws a TypeError when the request is no valid opening request (no Sec-WebSocket-Key). */
  function upgradeWebSocket(
    request: Request,
    options?: UpgradeWebSocketOptions,
  ): { socket: WebSocket; response: Response };

  interface CommandOptions {
    args?: string[];
    env?: Record<string, string>;
    stdin?: "inherit" | "null";
    stdout?: "inherit" | "null";
    stderr?: "inherit" | "null";
  }
  interface ChildProcess {
    readonly pid: number;
    readonly status: Promise<{ success: boolean; code: number; signal: string | null }>;
    kill(signal?: "SIGTERM" | "SIGINT" | "SIGKILL"): void;
  }
  class Command {
    constructor(command: string, options?: CommandOptions);
    spawn(): ChildProcess;
  }

  const version: { readonly deno: string; readonly v8: string; readonly typescript: string };
  const pid: number;
  const mainModule: string;
  function execPath(): string;
  function exit(code?: number): never;
  function addSignalListener(signal: "SIGTERM" | "SIGINT", handler: () => void): void;
}
