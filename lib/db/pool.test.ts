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

describe("the app's pool", () => {
  it("has the size it is given", () => {
    expect(poolOf(client(inject("databaseUrl"), { size: 3 })).options.max).toBe(3);
    expect(poolOf(client(inject("databaseUrl"), {})).options.max).toBe(10);
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
