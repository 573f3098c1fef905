import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/tests/app-env";
import { makeScratchDir, removeScratchDir } from "@/tests/helpers/scratch";
import { startReplicatedPostgres, type ReplicatedPostgres } from "./replicated-postgres";

/**
 * The soak's failover, on its own: a primary streaming to an asynchronous
 * standby behind one endpoint; the standby held back, the primary killed,
 * the standby promoted. Commits the standby never received are gone, and
 * the same URL reaches the new primary.
 */
let db: ReplicatedPostgres;
let dataDir: string;
const lines: string[] = [];

beforeAll(async () => {
  dataDir = await makeScratchDir("chaos-failover-");
  db = await startReplicatedPostgres({ dataDir, basePort: await freePort(2), log: (l) => lines.push(l) });
  await db.createDatabase("failover_test");
}, 60_000);
// The two clusters take about 150 MB: none is left behind in the system's temporary folder.
afterAll(async () => {
  await db?.stop();
  if (dataDir) await removeScratchDir(dataDir);
});

async function withClient<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: db.urlFor("failover_test") });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe("a failover to an asynchronous standby", () => {
  it("loses the commits the standby had not received, and the endpoint reaches the promoted standby", async () => {
    await withClient((c) => c.query("create table writes (n int primary key)"));
    expect(await db.ready()).toBe(true);
    // Acknowledged commits, one by one, while the failover happens.
    let acknowledged = 0;
    let writing = true;
    const writer = withClient(async (c) => {
      c.on("error", () => undefined);
      while (writing) {
        try {
          await c.query("insert into writes values ($1)", [acknowledged + 1]);
          acknowledged += 1;
        } catch {
          return;
        }
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    const report = await db.failover({ lagMs: 400 });
    writing = false;
    await writer;

    expect(report.transactionsLost).toBeGreaterThan(0);
    const kept = await withClient(async (c) => {
      const { rows } = await c.query<{ n: number }>("select count(*)::int as n from writes");
      return rows[0]!.n;
    });
    expect(kept).toBeGreaterThan(0);
    expect(acknowledged - kept).toBeGreaterThan(0); // acknowledged to the client, gone after the failover
    // The promoted standby is a primary: it takes writes through the same URL.
    await withClient((c) => c.query("insert into writes values (-1)"));
    expect(lines.some((l) => /failover +#1/.test(l))).toBe(true);

    // A new standby is copied from the new primary: the next failover can happen.
    expect(await db.ready()).toBe(true);
    const second = await db.failover({ lagMs: 0 });
    expect(second.switchMs).toBeGreaterThanOrEqual(0);
    expect(await withClient(async (c) => (await c.query("select 1 from writes where n = -1")).rowCount)).toBe(1);
  }, 90_000);
});
