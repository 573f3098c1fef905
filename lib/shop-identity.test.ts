import pg from "pg";
import { afterEach, describe, expect, inject, it } from "vitest";
import { createOwnDatabase, type OwnDatabase } from "@/tests/helpers/own-database";
import { ConfigError } from "./env";
import { establishShopIdentity } from "./shop-identity";

const databases: OwnDatabase[] = [];
afterEach(async () => {
  for (const database of databases.splice(0)) await database.drop();
});

async function unnamed(): Promise<string> {
  const database = await createOwnDatabase("identity");
  databases.push(database);
  return database.url;
}

describe("the shop identity a database records", () => {
  it("is named once by SHOP_ID, agreed with after, and another SHOP_ID is refused in one line", async () => {
    const url = await unnamed();
    expect(await establishShopIdentity(url, "shop-a", { mayName: false })).toBe("shop-a");
    expect(await establishShopIdentity(url, undefined, { mayName: false })).toBe("shop-a");
    expect(await establishShopIdentity(url, undefined, { mayName: true })).toBe("shop-a");
    const refused = establishShopIdentity(url, "shop-b", { mayName: false });
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(
      /^SHOP_ID: shop-b is not the shop this database belongs to \(shop-a\); set SHOP_ID=shop-a or unset it$/,
    );
  });

  it("is never made up for a database that is not local: without SHOP_ID the process refuses", async () => {
    const url = await unnamed();
    await expect(establishShopIdentity(url, undefined, { mayName: false })).rejects.toThrow(/^SHOP_ID: required/);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rowCount } = await client.query("select 1 from shop_identity");
    await client.end();
    expect(rowCount).toBe(0);
  });

  it("names a local database once, at random, and every later process takes that name", async () => {
    const url = await unnamed();
    const first = await establishShopIdentity(url, undefined, { mayName: true });
    expect(first).toMatch(/^local-[0-9a-f]{12}$/);
    expect(await establishShopIdentity(url, undefined, { mayName: true })).toBe(first);
    expect(await establishShopIdentity(url, undefined, { mayName: false })).toBe(first);
  });

  it("has one name when ten processes name it at once: one wins, the others are refused", async () => {
    const url = await unnamed();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => establishShopIdentity(url, `shop-${i}`, { mayName: false })),
    );
    const won = results.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    const winner = (won[0] as PromiseFulfilledResult<string>).value;
    for (const r of results.filter((r) => r.status === "rejected"))
      expect(String((r as PromiseRejectedResult).reason)).toContain(`belongs to (${winner})`);
  });

  it("on a database that is not migrated, says to migrate", async () => {
    const shared = new URL(inject("databaseUrl"));
    const admin = new pg.Client({ connectionString: inject("adminDatabaseUrl") });
    const name = `${shared.pathname.slice(1)}_bare`;
    await admin.connect();
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.query(`create database "${name}"`);
    try {
      await expect(
        establishShopIdentity(new URL(`/${name}`, shared).toString(), "shop-a", { mayName: false }),
      ).rejects.toThrow(/^DATABASE_URL: the database is not migrated .*npm run db:migrate/);
    } finally {
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.end();
    }
  });
});
