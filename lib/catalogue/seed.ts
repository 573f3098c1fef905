import { repriceOpenCheckouts } from "../checkout/checkouts";
import { ConfigError, type ShopCurrency } from "../env";
import type { PrismaClient } from "../generated/prisma/client";
import { CATALOGUE } from "./catalogue";

/**
 * Idempotent: running it twice leaves one row per product, with current
 * prices. The catalogue is priced in `currency` whatever the rows said, so a
 * database seeded in another currency is re-priced. A product the catalogue
 * does not list is nobody's to re-price: in another currency it refuses the
 * seed, and nothing is written (docs/decisions/0035). Checkouts without a
 * live payment are re-priced with it (`repriceOpenCheckouts`).
 */
export async function seedCatalogue(
  prisma: PrismaClient,
  currency: ShopCurrency,
): Promise<{ products: number; repricedCheckouts: number }> {
  return prisma.$transaction(async (tx) => {
    const foreign = await tx.product.findMany({
      where: { sku: { notIn: CATALOGUE.map((product) => product.sku) }, currency: { not: currency } },
      select: { sku: true, currency: true },
      orderBy: { sku: "asc" },
    });
    if (foreign.length > 0) {
      throw new ConfigError(
        `SHOP_CURRENCY: the shop prices in ${currency}, but products the catalogue does not list are in another currency ` +
          `(${foreign.map((p) => `${p.sku} ${p.currency}`).join(", ")}): re-price or remove them, then seed again`,
      );
    }
    for (const product of CATALOGUE) {
      const { sku, ...fields } = product;
      await tx.product.upsert({ where: { sku }, create: { ...product, currency }, update: { ...fields, currency } });
    }
    return { products: CATALOGUE.length, repricedCheckouts: await repriceOpenCheckouts(tx) };
  });
}
