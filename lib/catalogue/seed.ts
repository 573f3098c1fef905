import type { PrismaClient } from "../generated/prisma/client";
import { CATALOGUE } from "./catalogue";

/** Idempotent: running it twice leaves one row per product, with current prices. */
export async function seedCatalogue(prisma: PrismaClient): Promise<number> {
  for (const product of CATALOGUE) {
    const { sku, ...fields } = product;
    await prisma.product.upsert({ where: { sku }, create: product, update: fields });
  }
  return CATALOGUE.length;
}
