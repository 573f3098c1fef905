import { expect, type Page } from "@playwright/test";

/** What a shopper does, by role and label, shared by the journeys. */
export async function addToCart(page: Page, product: string, quantity = 1): Promise<void> {
  const card = page.getByRole("list", { name: "Products" }).getByRole("listitem", { name: product });
  await card.getByRole("button", { name: "Add to cart" }).click();
  for (let n = 1; n < quantity; n++) await card.getByRole("button", { name: `Add one more ${product}` }).click();
  await expect(card).toContainText(`${quantity} in cart`);
}

export async function goToCheckout(page: Page): Promise<void> {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /^Cart/ }).click();
  await expect(page.getByRole("heading", { name: "Checkout", level: 1 })).toBeVisible();
}

export const paymentStatus = (page: Page) => page.getByRole("region", { name: "Payment" }).getByRole("status");
export const payButton = (page: Page) => page.getByRole("button", { name: /^Pay / });
export const confirmationHeading = (page: Page) => page.getByRole("heading", { name: "Thank you — your order is paid" });
