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
export const confirmationHeading = (page: Page) =>
  page.getByRole("heading", { name: "Thank you — your order is paid" });

/**
 * Counts, from now on, the presses that reached the page (pointerdown, which
 * fires even on a disabled button) and the form submissions they caused (each
 * one a press of Pay that reached the checkout code). A reload starts a new
 * document and new counts.
 */
export async function watchPresses(page: Page): Promise<() => Promise<{ pointerDowns: number; submits: number }>> {
  await page.evaluate(() => {
    const counts = { pointerDowns: 0, submits: 0 };
    (window as unknown as { presses: typeof counts }).presses = counts;
    document.addEventListener("pointerdown", () => counts.pointerDowns++, true);
    document.addEventListener("submit", () => counts.submits++, true);
  });
  return () =>
    page.evaluate(() => ({ ...(window as unknown as { presses: { pointerDowns: number; submits: number } }).presses }));
}
