import { afterEach, describe, expect, it } from "vitest";
import { createOwnDatabase, type OwnDatabase } from "@/tests/helpers/own-database";
import { createPrismaClient } from "../db";
import { ConfigError } from "../env";
import { catalogueCurrencyProblem } from "../startup";
import { CATALOGUE } from "./catalogue";
import { seedCatalogue } from "./seed";

const databases: OwnDatabase[] = [];
afterEach(async () => {
  for (const database of databases.splice(0)) await database.drop();
});

/** A database seeded in USD, as every database was before SHOP_CURRENCY. */
async function seededInUsd() {
  const database = await createOwnDatabase("seedcurrency", "usd");
  databases.push(database);
  const prisma = createPrismaClient(database.url);
  return { url: database.url, prisma };
}

const currencies = async (prisma: ReturnType<typeof createPrismaClient>) =>
  (await prisma.product.findMany({ select: { sku: true, currency: true, priceCents: true }, orderBy: { sku: "asc" } }))
    .map((p) => `${p.sku} ${p.priceCents} ${p.currency}`)
    .join(", ");

describe("the catalogue's currency", () => {
  it("is SHOP_CURRENCY's: seeding a USD database in EUR re-prices every product, and the start-up check then passes", async () => {
    const { url, prisma } = await seededInUsd();
    try {
      expect(await catalogueCurrencyProblem(url, "usd")).toBeNull();
      // A server told EUR refuses this database in one line saying what to run.
      expect(await catalogueCurrencyProblem(url, "eur")).toMatch(
        /^SHOP_CURRENCY: is eur, but the catalogue in the database is priced in another currency \(cap-canvas usd, mug-enamel usd, notebook-a5 usd\): run npm run db:seed with SHOP_CURRENCY=eur to re-price it, or set SHOP_CURRENCY to the catalogue's$/,
      );
      expect(await seedCatalogue(prisma, "eur")).toBe(CATALOGUE.length);
      const rows = await prisma.product.findMany();
      expect(rows).toHaveLength(CATALOGUE.length);
      expect(new Set(rows.map((p) => p.currency))).toEqual(new Set(["eur"]));
      const tee = rows.find((p) => p.sku === "tee-classic");
      expect(tee?.priceCents).toBe(CATALOGUE.find((p) => p.sku === "tee-classic")?.priceCents);
      expect(await catalogueCurrencyProblem(url, "eur")).toBeNull();
      expect(await catalogueCurrencyProblem(url, "usd")).toMatch(/^SHOP_CURRENCY: is usd, but/);
    } finally {
      await prisma.$disconnect();
    }
  });

  it("refuses to seed over a product the catalogue does not list in another currency, writing nothing", async () => {
    const { url, prisma } = await seededInUsd();
    try {
      await prisma.product.create({
        data: { sku: "gift-card", name: "Gift Card", description: "an operator's", priceCents: 5000, currency: "usd" },
      });
      const before = await currencies(prisma);
      const refused = seedCatalogue(prisma, "eur");
      await expect(refused).rejects.toThrow(ConfigError);
      await expect(refused).rejects.toThrow(
        /^SHOP_CURRENCY: the shop prices in eur, but products the catalogue does not list are in another currency \(gift-card usd\): re-price or remove them, then seed again$/,
      );
      expect(await currencies(prisma)).toBe(before);
      // Seeding in the currency the product is in is fine, and the refusal stays until it is re-priced.
      expect(await seedCatalogue(prisma, "usd")).toBe(CATALOGUE.length);
      expect(await catalogueCurrencyProblem(url, "eur")).toMatch(/gift-card usd/);
    } finally {
      await prisma.$disconnect();
    }
  });
});
