import { expect, test } from "./fixtures";
import { CATALOGUE } from "@/lib/catalogue/catalogue";
import { money } from "./settings";

const priceOf = (sku: string) => money(CATALOGUE.find((product) => product.sku === sku)!.priceCents);

test("A shopper sees the seeded catalogue with prices from the database", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Catalogue" })).toBeVisible();
  const products = page.getByRole("list", { name: "Products" }).getByRole("listitem");
  await expect(products).toHaveCount(CATALOGUE.length);
  await expect(page.getByRole("listitem", { name: "Classic Tee" })).toContainText(priceOf("tee-classic"));
  await expect(page.getByRole("listitem", { name: "Dot-grid Notebook" })).toContainText(priceOf("notebook-a5"));
  // Each product's picture, from the shop's own origin, loaded; and the shop's icon.
  const picture = page.getByRole("img", { name: "A green crew-neck T-shirt" });
  await expect(picture).toBeVisible();
  expect(new URL((await picture.getAttribute("src"))!, page.url()).origin).toBe(new URL(page.url()).origin);
  expect(await picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  const icon = await page.locator('link[rel="icon"]').getAttribute("href");
  const served = await page.request.get(icon!);
  expect(served.status()).toBe(200);
  expect(served.headers()["content-type"]).toContain("image/svg+xml");
});

test("The health endpoint reports the database and the payment provider up", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ ok: true, db: true, payments: true });
});
