import { expect, test } from "./fixtures";
import { CATALOGUE } from "@/lib/catalogue/catalogue";

test("A shopper sees the seeded catalogue with prices from the database", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Catalogue" })).toBeVisible();
  const products = page.getByRole("list", { name: "Products" }).getByRole("listitem");
  await expect(products).toHaveCount(CATALOGUE.length);
  await expect(page.getByRole("listitem", { name: "Classic Tee" })).toContainText("$25.00");
  await expect(page.getByRole("listitem", { name: "Dot-grid Notebook" })).toContainText("$12.00");
});

test("The health endpoint reports the database and the payment provider up", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ ok: true, db: true, payments: true });
});
