import { listProducts } from "@/lib/catalogue/products";
import { db } from "@/lib/db";
import { json } from "@/lib/http";

export const dynamic = "force-dynamic";

export async function GET() {
  const products = await listProducts(db());
  return json(products.map(({ sku, name, priceCents, currency }) => ({ sku, name, priceCents, currency })));
}
