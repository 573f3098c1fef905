import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, writeFile } from "node:fs/promises";
import { userInfo } from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "../app-env";
import { makeScratchDir, removeScratchDir } from "./scratch";

/**
 * A real PgBouncer (Debian's `pgbouncer` package) in front of one database of
 * the test server, in a temporary directory of its own, on a free port, in
 * transaction mode with `poolSize` server connections: every client shares
 * them, as a managed pooler does. Its admin console answers `SHOW …`.
 */
export interface PgBouncer {
  /** The database through the pooler (add `?pgbouncer=true` for the app). */
  url: string;
  version: string;
  /** A `SHOW` command on the admin console (simple protocol, as it requires). */
  show<T>(what: "CONFIG" | "POOLS" | "STATS" | "CLIENTS" | "SERVERS"): Promise<T[]>;
  stop(): Promise<void>;
}

/** Where Debian's package puts it, off the PATH of users other than root. */
const DEBIAN_BINARY = "/usr/sbin/pgbouncer";

/** The binary and its version (`PgBouncer 1.18.0`), or null when there is none on the PATH nor in /usr/sbin. */
export function findPgBouncer(): { binary: string; version: string } | null {
  for (const binary of ["pgbouncer", DEBIAN_BINARY]) {
    const run = spawnSync(binary, ["--version"], { encoding: "utf8" });
    if (run.status === 0) return { binary, version: (run.stdout.split("\n")[0] ?? "").trim() };
  }
  return null;
}

export async function startPgBouncer(
  binary: string,
  serverUrl: string,
  options: { poolSize: number },
): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const database = server.pathname.slice(1);
  const user = decodeURIComponent(server.username);
  const password = randomBytes(16).toString("hex"); // the clients' password at the pooler, not the server's
  const port = await freePort();
  const dir = await makeScratchDir("pgbouncer-");
  const serverPassword = server.password ? ` password=${decodeURIComponent(server.password)}` : "";
  await writeFile(path.join(dir, "userlist.txt"), `"${user}" "${password}"\n`);
  await writeFile(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `${database} = host=${server.hostname} port=${server.port || 5432} dbname=${database} user=${user}${serverPassword}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = md5",
      `auth_file = ${path.join(dir, "userlist.txt")}`,
      `admin_users = ${user}`,
      "pool_mode = transaction",
      `default_pool_size = ${options.poolSize}`,
      "max_client_conn = 200",
      "",
    ].join("\n"),
  );
  // PgBouncer refuses to run as root: as root it switches to the `postgres` user its package brings.
  const asRoot = userInfo().uid === 0;
  if (asRoot) for (const file of ["userlist.txt", "pgbouncer.ini"]) await chmod(path.join(dir, file), 0o644);
  const child = spawn(binary, [...(asRoot ? ["-u", "postgres"] : []), path.join(dir, "pgbouncer.ini")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => output.push(chunk.toString());
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const admin = `postgresql://${encodeURIComponent(user)}:${password}@127.0.0.1:${port}/pgbouncer`;
  const show = async <T>(what: string): Promise<T[]> => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      return (await client.query<T & pg.QueryResultRow>(`SHOW ${what}`)).rows;
    } finally {
      await client.end();
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
    await removeScratchDir(dir);
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const [row] = await show<{ version: string }>("VERSION");
      return {
        url: `postgresql://${encodeURIComponent(user)}:${password}@127.0.0.1:${port}/${database}`,
        version: row!.version,
        show,
        stop,
      };
    } catch (err) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`PgBouncer did not start (${String(err)}):\n${output.join("")}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
