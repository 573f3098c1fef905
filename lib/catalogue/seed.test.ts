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
      expect(await seedCatalogue(prisma, "eur")).toEqual({ products: CATALOGUE.length, repricedCheckouts: 0 });
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
      expect((await seedCatalogue(prisma, "usd")).products).toBe(CATALOGUE.length);
      expect(await catalogueCurrencyProblem(url, "eur")).toMatch(/gift-card usd/);
    } finally {
      await prisma.$disconnect();
    }
  });

  it("re-prices the checkouts without a live payment, so an unchanged cart pays what the shop now shows", async () => {
    const { prisma } = await seededInUsd();
    try {
      const price = (sku: string) => CATALOGUE.find((p) => p.sku === sku)!.priceCents;
      const customer = await prisma.customer.create({ data: {} });
      // Priced in dollars before the switch, at a price the catalogue no longer has.
      const checkout = (extra: object = {}) =>
        prisma.checkout.create({
          data: {
            customerId: customer.id,
            amountCents: 2 * 999,
            currency: "usd",
            lines: [{ sku: "tee-classic", name: "Old Tee", price_cents: 999, quantity: 2 }, ...Object.values(extra)],
          },
        });
      const open = await checkout();
      const failedLater = await checkout();
      const paying = await checkout();
      const gone = await checkout({ line: { sku: "retired-sku", name: "Gone", price_cents: 100, quantity: 1 } });
      const order = (checkoutId: string, status: "failed" | "processing") =>
        prisma.order.create({
          data: { customerId: customer.id, checkoutId, status, amountCents: 1998, currency: "usd" },
        });
      await order(failedLater.id, "failed");
      await order(paying.id, "processing");

      expect((await seedCatalogue(prisma, "eur")).repricedCheckouts).toBe(2);
      const read = (id: string) =>
        prisma.checkout.findUniqueOrThrow({
          where: { id },
          select: { amountCents: true, currency: true, lines: true },
        });
      const repriced = {
        amountCents: 2 * price("tee-classic"),
        currency: "eur",
        lines: [{ sku: "tee-classic", name: "Classic Tee", price_cents: price("tee-classic"), quantity: 2 }],
      };
      expect(await read(open.id)).toEqual(repriced);
      expect(await read(failedLater.id)).toEqual(repriced);
      // The shopper paying keeps the amount being paid; a line no longer sold keeps its checkout as it was.
      expect(await read(paying.id)).toMatchObject({ amountCents: 1998, currency: "usd" });
      expect(await read(gone.id)).toMatchObject({ amountCents: 1998, currency: "usd" });
      // Nothing changed since: a second seed re-prices nothing.
      expect((await seedCatalogue(prisma, "eur")).repricedCheckouts).toBe(0);
    } finally {
      await prisma.$disconnect();
    }
  });
});
