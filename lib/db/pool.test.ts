import { createServer, type Socket } from "node:net";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createPrismaClient, poolOf, queryRows } from "./index";

/**
 * The app's pool has a size, a connection timeout and a statement timeout
 * (DATABASE_POOL_SIZE, DATABASE_CONNECT_TIMEOUT_MS,
 * DATABASE_STATEMENT_TIMEOUT_MS): a stuck statement or a server that does not
 * answer fails the request instead of holding a connection for good.
 */
const clients: Array<ReturnType<typeof createPrismaClient>> = [];
afterAll(() => Promise.all(clients.map((c) => c.$disconnect())));
const client = (url: string, options: Parameters<typeof createPrismaClient>[1]) => {
  const made = createPrismaClient(url, options);
  clients.push(made);
  return made;
};

/** The named statements the server keeps for the connection the query runs on. */
const prepared = async (prisma: ReturnType<typeof createPrismaClient>) =>
  (await queryRows<{ n: number }>(prisma, "select count(*)::int as n from pg_prepared_statements", []))[0]!.n;

describe("the app's pool", () => {
  it("has the size it is given", () => {
    expect(poolOf(client(inject("databaseUrl"), { size: 3 })).options.max).toBe(3);
    expect(poolOf(client(inject("databaseUrl"), {})).options.max).toBe(10);
  });

  it("names its statements, so each connection prepares them once", async () => {
    const prisma = client(inject("databaseUrl"), { size: 1 });
    await prisma.product.findMany({ select: { sku: true } });
    expect(await prepared(prisma)).toBeGreaterThanOrEqual(2); // Prisma's query and the count itself
    expect(poolOf(prisma).options.statement_timeout).toBe(15_000);
  });

  it("behind a transaction pooler (pgbouncer=true) names no statement, whoever asks, and leaves the timeout to the server", async () => {
    const url = new URL(inject("databaseUrl"));
    url.searchParams.set("pgbouncer", "true");
    const prisma = client(url.toString(), { size: 1 });
    await prisma.product.findMany({ select: { sku: true } });
    await queryRows(prisma, "select 1 as one", []);
    // As rate-limiter-flexible asks, on the same pool.
    await poolOf(prisma).query({ name: "counters:rlflx-get", text: "select $1::int as n", values: [1] });
    expect(await prepared(prisma)).toBe(0);
    expect(poolOf(prisma).options.statement_timeout).toBeUndefined();
    // pg ignores the parameter: the connection works as any other.
    expect(await queryRows(prisma, "select current_database() as name", [])).toEqual([{ name: url.pathname.slice(1) }]);
  });

  it("has PostgreSQL cancel a statement that runs past the statement timeout", async () => {
    const prisma = client(inject("databaseUrl"), { statementTimeoutMs: 200 });
    const started = Date.now();
    await expect(queryRows(prisma, "select pg_sleep(5)", [])).rejects.toMatchObject({ code: "57014" });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(await queryRows(prisma, "select 1 as one", [])).toEqual([{ one: 1 }]);
  });

  it("gives up on a server that accepts the connection but never answers", async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const prisma = client(`postgresql://nobody@127.0.0.1:${port}/none`, { connectTimeoutMs: 300 });
      const started = Date.now();
      await expect(queryRows(prisma, "select 1", [])).rejects.toThrow(/timeout/i);
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(sockets.length).toBeGreaterThan(0); // it did reach the silent server
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
