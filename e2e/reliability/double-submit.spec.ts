import type { Page } from "@playwright/test";
import { expect, recordCheckoutTraffic, test } from "../fixtures";
import { addToCart, confirmationHeading, goToCheckout, payButton, watchPresses } from "../shop";
import { expectChargedOnce, onlyKey, orderIdOf, outcomes } from "./evidence";

// The payment's one Stripe call (create and confirm) takes this long, so a
// duplicate always arrives while the first request is still charging: the
// server must answer it as a duplicate (409); it cannot pass by arriving late.
const LATENCY_MS = 2_000;

/**
 * Two submissions of one attempt: the page shows the confirmation, each
 * request ends in a 201 (the first answer and the duplicate's replay of it),
 * all under one key, and the second left before either was answered.
 */
async function bothInFlightThenConfirmed(page: Page, traffic: ReturnType<typeof recordCheckoutTraffic>) {
  await expect(confirmationHeading(page)).toBeVisible();
  await expect
    .poll(async () =>
      outcomes(await traffic.settled())
        .filter((o) => o.startsWith("201"))
        .sort(),
    )
    .toEqual(["201", "201 replayed"]);
  const exchanges = await traffic.settled();
  const key = onlyKey(exchanges);
  expect(exchanges[1]!.sentAt).toBeLessThanOrEqual(Math.min(exchanges[0]!.answeredAt!, exchanges[1]!.answeredAt!));
  return { exchanges, key };
}

test(
  "A double click that lands before React re-renders charges the card once",
  { tag: "@phone" },
  async ({ page, shopper, emulator }) => {
    const traffic = recordCheckoutTraffic(page);
    await page.goto("/");
    await addToCart(page, "Classic Tee");
    await goToCheckout(page);
    const presses = await watchPresses(page);
    await emulator.faults({ latencyMs: LATENCY_MS });

    // Both clicks run in one task, before React can disable the button.
    const enabledForSecondClick = await payButton(page).evaluate((button: HTMLButtonElement) => {
      const click = () => button.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
      click();
      const enabled = !button.disabled;
      click();
      return enabled;
    });
    expect(enabledForSecondClick).toBe(true);
    expect((await presses()).submits).toBe(2);

    const { exchanges, key } = await bothInFlightThenConfirmed(page, traffic);
    // After the two POSTs, one more per 409 the duplicate got while the first was charging.
    const conflicts = exchanges.filter((e) => e.status === 409).length;
    expect(conflicts).toBeGreaterThanOrEqual(1);
    expect(exchanges).toHaveLength(2 + conflicts);
    const paid = exchanges.find((e) => e.status === 201 && !e.replayed);
    expect(orderIdOf(exchanges.find((e) => e.replayed))).toBe(orderIdOf(paid));
    await expect(page).toHaveURL(`/orders/${orderIdOf(paid)}`);

    // The provider was called once, for the one payment.
    expect(await emulator.stats()).toMatchObject({ charges: 1, delayed: 1 });
    await expectChargedOnce(shopper, { amountCents: 2500, key, orderId: orderIdOf(paid) });
  },
);

test("A rapid triple click on Pay charges the card once", async ({ page, shopper, emulator }) => {
  const traffic = recordCheckoutTraffic(page);
  await page.goto("/");
  await addToCart(page, "Classic Tee");
  await goToCheckout(page);
  const presses = await watchPresses(page);
  await emulator.faults({ latencyMs: LATENCY_MS });

  await payButton(page).click({ clickCount: 3 });

  await expect(confirmationHeading(page)).toBeVisible();
  // All three presses reached the page. Those that landed before React disabled the
  // button each sent the attempt (usually just the first): one request per press that
  // got through, plus one retry per 409, one first answer, and replays for the rest.
  const { pointerDowns, submits } = await presses();
  expect(pointerDowns).toBe(3);
  expect(submits).toBeGreaterThanOrEqual(1);
  await expect
    .poll(async () => outcomes(await traffic.settled()).filter((o) => o.startsWith("201")).length)
    .toBe(submits);
  const exchanges = await traffic.settled();
  const key = onlyKey(exchanges);
  const conflicts = exchanges.filter((e) => e.status === 409).length;
  expect(exchanges).toHaveLength(submits + conflicts);
  expect(outcomes(exchanges).filter((o) => o === "201")).toHaveLength(1);
  expect(await emulator.stats()).toMatchObject({ charges: 1, delayed: 1 });
  await expectChargedOnce(shopper, {
    amountCents: 2500,
    key,
    orderId: orderIdOf(exchanges.find((e) => e.status === 201)),
  });
});

test("Two submissions of one attempt at once: the duplicate gets 409, polls, and confirms the same order", async ({
  page,
  shopper,
  emulator,
}) => {
  const traffic = recordCheckoutTraffic(page);
  await page.goto("/");
  await addToCart(page, "Enamel Mug", 2);
  await goToCheckout(page);
  const presses = await watchPresses(page);
  await emulator.faults({ latencyMs: LATENCY_MS });

  // The page's own checkout code runs twice at once: two mutations of the one stored attempt.
  await payButton(page).evaluate((button: HTMLButtonElement) => {
    button.form!.requestSubmit();
    button.form!.requestSubmit();
  });
  expect((await presses()).submits).toBe(2);

  const { exchanges, key } = await bothInFlightThenConfirmed(page, traffic);
  // The server answered the duplicate at once instead of making it wait…
  const conflict = exchanges.find((e) => e.status === 409)!;
  expect(conflict.json).toMatchObject({ error: "in_progress", retryAfterSeconds: 1 });
  expect(conflict.retryAfter).toBe("1");
  // …and the page polled: asked again, no sooner than Retry-After, until the replay of the first answer.
  const poll = exchanges.find((e) => e.sentAt > conflict.answeredAt!);
  expect(poll, "a request after the 409").toBeDefined();
  expect(poll!.browserTiming!.startedAt - conflict.browserTiming!.finishedAt).toBeGreaterThanOrEqual(900);
  expect(exchanges).toHaveLength(2 + exchanges.filter((e) => e.status === 409).length);
  const paid = exchanges.find((e) => e.status === 201 && !e.replayed);
  expect(orderIdOf(exchanges.find((e) => e.replayed))).toBe(orderIdOf(paid));

  expect(await emulator.stats()).toMatchObject({ charges: 1, delayed: 1 });
  await expectChargedOnce(shopper, { amountCents: 2 * 1800, key, orderId: orderIdOf(paid) });
});
