// Two hosts on one machine, for --server-host: two network namespaces joined by a veth pair
// (10.77.0.1 the load generator's, 10.77.0.2 the server's), and an sshd in the server's
// namespace, started here with a throwaway host key and a throwaway login key. Both "hosts"
// share the filesystem, so the server's checkout is this one. Needs root, iproute2 and sshd.

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Finished, startBenchmark } from "./run-benchmark.ts";

export const SERVER_ADDRESS = "10.77.0.2";
export const SSH_PORT = 2222;
const SSHD = "/usr/sbin/sshd";

/** Why two hosts cannot be made here; undefined when they can. */
export function twoHostsProblem(): string | undefined {
  if (process.getuid?.() !== 0) return "network namespaces need root";
  if (!existsSync(SSHD)) return `no sshd at ${SSHD} (apt-get install openssh-server)`;
  try {
    execFileSync("ip", ["netns", "list"], { stdio: "ignore" });
  } catch {
    return "no `ip netns` (iproute2)";
  }
  return undefined;
}

export interface TwoHosts {
  /** The namespace the harness and its load generator run in. */
  readonly client: string;
  /** The namespace the sshd, the agent and the apps run in. */
  readonly server: string;
  /** An ssh config file with the throwaway key; the path is unique to this pair. */
  readonly sshConfig: string;
  readonly dir: string;
  /** The sshd started here (its listener). */
  readonly sshd: ChildProcess;
  close(): void;
}

const ip = (...args: string[]) => execFileSync("ip", args, { stdio: "ignore" });

/** The namespaces, the link between them and the sshd; close() takes it all down. */
export async function startTwoHosts(): Promise<TwoHosts> {
  const id = `${process.pid % 100000}`;
  const client = `bench-c-${id}`;
  const server = `bench-s-${id}`;
  const dir = mkdtempSync(join(tmpdir(), "bench-two-hosts-"));
  ip("netns", "add", client);
  ip("netns", "add", server);
  ip("link", "add", `bvc${id}`, "type", "veth", "peer", "name", `bvs${id}`);
  ip("link", "set", `bvc${id}`, "netns", client);
  ip("link", "set", `bvs${id}`, "netns", server);
  for (const [ns, dev, address] of [
    [client, `bvc${id}`, "10.77.0.1/24"],
    [server, `bvs${id}`, `${SERVER_ADDRESS}/24`],
  ] as const) {
    ip("-n", ns, "addr", "add", address, "dev", dev);
    ip("-n", ns, "link", "set", dev, "up");
    ip("-n", ns, "link", "set", "lo", "up");
  }
  const keygen = (file: string) =>
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, file)]);
  keygen("host_key");
  keygen("id");
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "id.pub")));
  writeFileSync(join(dir, "sshd_config"), sshdConfig(dir));
  const sshConfig = join(dir, "ssh_config");
  writeFileSync(
    sshConfig,
    `Host *\n  IdentityFile ${join(dir, "id")}\n  IdentitiesOnly yes\n  StrictHostKeyChecking no\n` +
      "  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n",
  );
  execFileSync("mkdir", ["-p", "/run/sshd"]); // sshd's privilege separation folder
  const sshd = spawn(
    "ip",
    ["netns", "exec", server, SSHD, "-D", "-e", "-f", join(dir, "sshd_config")],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  await waitForSshd(client, sshConfig);
  const close = () => {
    sshd.kill("SIGKILL");
    for (const ns of [client, server]) {
      try {
        ip("netns", "del", ns); // the veth pair goes with them
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return { client, server, sshConfig, dir, sshd, close };
}

function sshdConfig(dir: string): string {
  return [
    `Port ${SSH_PORT}`,
    `ListenAddress ${SERVER_ADDRESS}`,
    `HostKey ${join(dir, "host_key")}`,
    `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
    "StrictModes no",
    "UsePAM no",
    "PermitRootLogin prohibit-password",
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    `PidFile ${join(dir, "sshd.pid")}`,
    "",
  ].join("\n");
}

async function waitForSshd(client: string, sshConfig: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      execFileSync("ip", ["netns", "exec", client, ...sshArgs(sshConfig), "true"], {
        stdio: "ignore",
        timeout: 5000,
      });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`sshd did not let us in: ${String(error)}`);
      await new Promise((done) => setTimeout(done, 100));
    }
  }
}

const sshArgs = (config: string) => [
  "ssh",
  "-F",
  config,
  "-p",
  String(SSH_PORT),
  `root@${SERVER_ADDRESS}`,
];

/** Runs ./benchmark.sh in the client's namespace; `onStderr` sees its progress so far. */
export function benchmarkIn(
  hosts: TwoHosts,
  args: readonly string[],
  onStderr?: (stderr: string) => void,
): Promise<Finished> {
  return startBenchmark(args, {}, onStderr, ["ip", "netns", "exec", hosts.client]).done;
}

/** Ports 3000-3014 listened on in the server's namespace (its own /proc/net/tcp). */
export function appPortsListening(hosts: TwoHosts): number[] {
  const tables = execFileSync(
    "ip",
    ["netns", "exec", hosts.server, "cat", "/proc/net/tcp", "/proc/net/tcp6"],
    {
      encoding: "utf8",
    },
  );
  const ports = new Set<number>();
  for (const line of tables.split("\n")) {
    const fields = line.trim().split(/\s+/);
    const port = Number.parseInt(fields[1]?.split(":")[1] ?? "", 16);
    if (fields[3] === "0A" && port >= 3000 && port <= 3014) ports.add(port);
  }
  return [...ports];
}

/** The sshd processes under the listener started here (one pair per connection). */
export function sshdSessions(hosts: TwoHosts): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const listener = hosts.sshd.pid as number;
  const under = (pid: number): boolean => {
    const parent = parents.get(pid);
    return parent === listener || (parent !== undefined && parent > 1 && under(parent));
  };
  return [...parents.keys()].filter((pid) => {
    if (!under(pid)) return false;
    try {
      return execFileSync("readlink", [`/proc/${pid}/exe`], { encoding: "utf8" }).trim() === SSHD;
    } catch {
      return false;
    }
  });
}
