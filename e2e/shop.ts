import { expect, type Page } from "@playwright/test";

/** What a shopper does, by role and label, shared by the journeys. */
export async function addToCart(page: Page, product: string, quantity = 1): Promise<void> {
  const card = page.getByRole("list", { name: "Products" }).getByRole("listitem", { name: product });
  await card.getByRole("button", { name: "Add to cart" }).click();
  for (let n = 1; n < quantity; n++) await card.getByRole("button", { name: `Add one more ${product}` }).click();
  await expect(card).toContainText(`${quantity} in cart`);
}

/**
 * Stripe's test card numbers (docs.stripe.com/testing), typed into the
 * Payment Element as a shopper types them; the emulator gives each the
 * behaviour of its `pm_card_*` token.
 */
export const CARDS = {
  visa: "4242 4242 4242 4242",
  declined: "4000 0000 0000 0002",
  insufficientFunds: "4000 0000 0000 9995",
  /** Always asks for 3-D Secure, then pays. */
  threeDSecure: "4000 0027 6000 3184",
} as const;

/** To the checkout, with the card typed into the Payment Element (none: leave the element as it is). */
export async function goToCheckout(page: Page, card: string | null = CARDS.visa): Promise<void> {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /^Cart/ }).click();
  await expect(page.getByRole("heading", { name: "Checkout", level: 1 })).toBeVisible();
  if (card) await typeCard(page, card);
}

/** The Payment Element's iframe: Stripe's title and input names, so this types into Stripe's own as well. */
export const cardFrame = (page: Page) => page.frameLocator('iframe[title="Secure payment input frame"]');

/** Types a card into the Payment Element: number, expiry (MM / YY), CVC, and the postal code where it is asked. */
export async function typeCard(
  page: Page,
  number: string,
  { expiry = "12 / 34", cvc = "123", postalCode = "10001" } = {},
): Promise<void> {
  const frame = cardFrame(page);
  await frame.locator('input[name="number"]').fill(number);
  await frame.locator('input[name="expiry"]').fill(expiry);
  await frame.locator('input[name="cvc"]').fill(cvc);
  const postal = frame.locator('input[name="postalCode"]');
  if (await postal.isVisible()) await postal.fill(postalCode);
}

/** The bank's 3-D Secure challenge, which Stripe.js opens over the checkout (handleNextAction). */
export const bankFrame = (page: Page) => page.frameLocator('iframe[title="3D Secure authentication"]');

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
