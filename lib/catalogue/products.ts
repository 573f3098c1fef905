import type { PrismaClient } from "../generated/prisma/client";

export interface ProductView {
  sku: string;
  name: string;
  description: string;
  priceCents: number;
  currency: string;
}

export function listProducts(prisma: PrismaClient): Promise<ProductView[]> {
  return prisma.product.findMany({
    select: { sku: true, name: true, description: true, priceCents: true, currency: true },
    orderBy: { priceCents: "desc" },
  });
}
