import { expect, test } from "./fixtures";
import { addToCart, cardFrame, confirmationHeading, goToCheckout, payButton, typeCard } from "./shop";

/**
 * The PCI SAQ A boundary: the card goes from Stripe's iframe to Stripe, and
 * the shop only ever sees the ConfirmationToken Stripe.js made of it. Proved
 * over every request the page and its frames made during a paid journey.
 */
const NUMBER = "4242 4242 4242 4242";
const EXPIRY = "11 / 33";
const CVC = "737";
const CARD = [/4242\s*4242\s*4242\s*4242/, /11\s*\/\s*33|1133/, /"737"|cvc=737|\bcvc\b/i];

/** Form-encoded and percent-encoded text as a server would read it. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}

test("No card number, expiry or CVC reaches the shop's origin during a paid journey", async ({ page, shopper }) => {
  const seen: { origin: string; text: string }[] = [];
  page.context().on("request", (request) => {
    const headers = Object.entries(request.headers())
      .map(([name, value]) => `${name}: ${value}`)
      .join("\n");
    seen.push({
      origin: new URL(request.url()).origin,
      text: `${request.method()} ${decoded(request.url())}\n${headers}\n${decoded(request.postData() ?? "")}`,
    });
  });
  await page.goto("/");
  const shop = new URL(page.url()).origin;
  await addToCart(page, "Classic Tee");
  await goToCheckout(page, null);
  await typeCard(page, NUMBER, { expiry: EXPIRY, cvc: CVC });
  await payButton(page).click();
  await expect(confirmationHeading(page)).toBeVisible();
  expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["succeeded"]);

  const toShop = seen.filter((r) => r.origin === shop);
  expect(toShop.some((r) => r.text.startsWith("POST ") && r.text.includes('"confirmationToken":"ctoken_'))).toBe(true);
  for (const request of toShop) for (const card of CARD) expect(request.text).not.toMatch(card);
  // The check can see a card where there is one: Stripe's frame sent it, to Stripe's origin alone.
  const withCard = seen.filter((r) => r.text.includes("payment_method_data[card][number]=4242424242424242"));
  expect(withCard.map((r) => r.origin)).toEqual([expect.not.stringMatching(shop)]);
  expect(withCard[0]!.text).toContain("payment_method_data[card][cvc]=737");
});

test("The checkout page cannot read what is typed into the card's frame", async ({ page }) => {
  await page.goto("/");
  await addToCart(page, "Classic Tee");
  await goToCheckout(page);
  await expect(cardFrame(page).locator('input[name="number"]')).toHaveValue(NUMBER);
  const attempt = await page.evaluate(() => {
    const frame = document.querySelector<HTMLIFrameElement>('iframe[title="Secure payment input frame"]')!;
    const name = frame.name;
    let document_: string;
    try {
      document_ = frame.contentDocument === null ? "null" : "readable";
    } catch (error) {
      document_ = (error as Error).name;
    }
    let inputs: string;
    try {
      inputs = String(
        (window.frames as unknown as Record<string, Window>)[name]!.document.querySelectorAll("input").length,
      );
    } catch (error) {
      inputs = (error as Error).name;
    }
    return { document: document_, inputs, origin: new URL(frame.src).origin, page: location.origin };
  });
  expect(attempt.origin).not.toBe(attempt.page);
  expect(attempt.document).toBe("null");
  expect(attempt.inputs).toBe("SecurityError");
});
