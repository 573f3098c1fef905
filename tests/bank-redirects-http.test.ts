import { describe, expect, it } from "vitest";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { useTestApp } from "./helpers/harness";
import { CART, newKey, type Shopper, waitFor } from "./helpers/shopper";
import { deliverTo } from "./helpers/webhooks";

/**
 * iDEAL and Bancontact over real HTTP (docs/decisions/0032-bank-redirects-return-anywhere-or-never.md):
 * the one create-and-confirm answers 202 with a redirect to the bank; while
 * the shopper is there the checkout has a live payment that no fresh key
 * reaches past; the bank's answer is recorded by the return, or, when the
 * shopper never returns, by the reconciler. The intent is created with
 * manual confirmation, so the bank's approval leaves it in
 * `requires_confirmation` (Stripe's confirm reference) with no event: the shop
 * confirms it, once, on whichever path gets there first. A database of its
 * own, without the events catch-up and (but for the last test) webhooks: here
 * the reconciler alone settles what no return reports.
 */
const TTL_MS = 6_000;
/** PAYMENT_ACTION_TIMEOUT_MS's default: when the reconciler first looks at an attempt waiting for the shopper. */
const ACTION_TIMEOUT_MS = 1_800_000;
const h = useTestApp(
  {
    PAYMENT_METHOD_TYPES: "card,ideal,bancontact",
    SHOP_CURRENCY: "eur", // Stripe takes iDEAL and Bancontact in EUR only
    EVENTS_CATCH_UP_INTERVAL_MS: "0",
    STRIPE_MAX_NETWORK_RETRIES: "0",
    STRIPE_TIMEOUT_MS: "4000",
    IDEMPOTENCY_IN_PROGRESS_TTL_MS: String(TTL_MS),
    MAINTENANCE_INTERVAL_MS: "300",
  },
  { ownDatabase: "bankredirects" },
);

/** `PAYMENT_ACTION_TIMEOUT_MS / 16`, capped at a minute (parkedLookAfterMs): the reconciler's first look at a parked attempt. */
const FIRST_LOOK_MS = 60_000;
const confirms = () => h.emulator.stat("confirms");

const stripe = () =>
  createStripeClient({ secretKey: h.app.emulator.apiKey, apiBase: h.app.emulator.url, maxNetworkRetries: 0 });

async function redirectToken(type: "ideal" | "bancontact"): Promise<string> {
  return (await stripe().testHelpers.confirmationTokens.create({ payment_method_data: { type } })).id;
}

async function openCheckout(shopper: Shopper): Promise<string> {
  const answer = await shopper.request("POST", "/api/checkouts", { body: { items: CART } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.id as string;
}

async function payByBank(shopper: Shopper, checkoutId: string, type: "ideal" | "bancontact" = "ideal", key = newKey()) {
  const answer = await shopper.checkout(key, {
    checkoutId,
    items: CART,
    confirmationToken: await redirectToken(type),
    paymentMethodType: type,
  });
  return { key, answer };
}

/** The shopper's choice on the bank's page, as the browser posts it; answers where the bank sends them. */
async function atTheBank(url: string, action: "authorize" | "fail"): Promise<URL> {
  const page = new URL(url);
  const res = await fetch(page.origin + page.pathname, {
    method: "POST",
    body: new URLSearchParams({ client_secret: page.searchParams.get("client_secret") ?? "", action }),
    redirect: "manual",
  });
  expect(res.status).toBe(303);
  return new URL(res.headers.get("location") ?? "");
}

async function reportReturn(shopper: Shopper, key: string, paymentIntent: string | null) {
  return shopper.request("POST", `/api/checkout/${key}/return`, { body: { paymentIntent } });
}

describe("a bank redirect", () => {
  it.each(["ideal", "bancontact"] as const)(
    "%s: 202 with a redirect to the bank; the return records the payment once",
    async (type) => {
      const shopper = await h.shopper();
      const checkoutId = await openCheckout(shopper);
      const { key, answer } = await payByBank(shopper, checkoutId, type);
      expect(answer.status, JSON.stringify(answer.body)).toBe(202);
      expect(answer.body).toMatchObject({ status: "requires_action", nextAction: { type: "redirect" } });
      const [intent] = await h.emulator.ledger();
      expect(intent).toMatchObject({
        status: "requires_action",
        currency: "eur",
        payment_method_types: ["card", "ideal", "bancontact"],
      });

      const confirmedBefore = await confirms();
      const back = await atTheBank(answer.body.nextAction.url as string, "authorize");
      expect(back.pathname).toBe("/checkout/return");
      expect(back.searchParams.get("key")).toBe(key);
      expect(back.searchParams.get("redirect_status")).toBe("succeeded");
      // Approved at the bank, not paid yet: a manual intent waits for the shop's confirm.
      expect((await h.emulator.ledger()).map((pi) => pi.status)).toEqual(["requires_confirmation"]);
      expect((await shopper.orders()).body.map((o) => o.status)).toEqual(["pending"]);
      const returned = await reportReturn(shopper, key, back.searchParams.get("payment_intent"));
      expect(returned.status, JSON.stringify(returned.body)).toBe(201);
      expect(returned.body).toMatchObject({ status: "paid", paymentIntentId: intent!.id });
      // The same return again (a reload, a second tab): the stored answer.
      const again = await reportReturn(shopper, key, intent!.id);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(returned.body);
      expect((await h.emulator.ledger()).map((pi) => pi.status)).toEqual(["succeeded"]);
      expect((await confirms()) - confirmedBefore).toBe(1);
      const read = await shopper.request("GET", `/api/checkouts/${checkoutId}`);
      expect(read.body.status).toBe("paid");
    },
  );

  it("20 fresh keys at once while the shopper is at the bank: none reaches the provider, all are led to it", async () => {
    const shopper = await h.shopper();
    const checkoutId = await openCheckout(shopper);
    const { key } = await payByBank(shopper, checkoutId);
    expect(await h.emulator.ledger()).toHaveLength(1);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => shopper.checkout(newKey(), { checkoutId, paymentMethod: "pm_card_visa" })),
    );
    expect(
      answers.map((a) => [a.status, a.body.error, a.body.status, a.body.key]),
      JSON.stringify(answers.map((a) => a.body)),
    ).toEqual(Array.from({ length: 20 }, () => [409, "checkout_has_payment", "requires_action", key]));
    const ledger = await h.emulator.ledger();
    expect(ledger.map((pi) => pi.status)).toEqual(["requires_action"]);
  });

  it("failed at the bank: 402, nothing charged, and the checkout is paid again by card, one order", async () => {
    const shopper = await h.shopper();
    const checkoutId = await openCheckout(shopper);
    const { key, answer } = await payByBank(shopper, checkoutId);
    const back = await atTheBank(answer.body.nextAction.url as string, "fail");
    expect(back.searchParams.get("redirect_status")).toBe("failed");
    const returned = await reportReturn(shopper, key, back.searchParams.get("payment_intent"));
    expect(returned.status, JSON.stringify(returned.body)).toBe(402);
    expect(returned.body).toMatchObject({ error: "authentication_failed" });

    const card = await shopper.checkout(newKey(), { checkoutId, paymentMethod: "pm_card_visa" });
    expect(card.status, JSON.stringify(card.body)).toBe(201);
    const ledger = await h.emulator.ledger();
    expect(ledger.map((pi) => pi.status).sort()).toEqual(["canceled", "succeeded"]);
    const orders = (await shopper.orders()).body as Array<{ status: string; attempts: Array<{ status: string }> }>;
    expect(orders.map((o) => [o.status, o.attempts.map((a) => a.status)])).toEqual([["paid", ["failed", "paid"]]]);
  });

  it("never returned: the reconciler's first look at the parked attempt confirms the approved payment, once", async () => {
    const shopper = await h.shopper();
    const checkoutId = await openCheckout(shopper);
    const { key, answer } = await payByBank(shopper, checkoutId);
    const confirmedBefore = await confirms();
    await atTheBank(answer.body.nextAction.url as string, "authorize"); // and the shopper closes the page
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // No event comes for requires_confirmation, and nobody reports a return: only the reconciler can settle it.
    expect((await h.emulator.ledger()).map((pi) => pi.status)).toEqual(["requires_confirmation"]);
    expect((await shopper.orders()).body.map((o) => o.status)).toEqual(["pending"]);
    // Its first look, long before the authentication times out: driven on as a return would drive it.
    const aged = await h.db.ageAttempt(shopper.customerId!, key, FIRST_LOOK_MS + 1_000);
    expect(aged.age_ms).toBeLessThan(ACTION_TIMEOUT_MS);

    await waitFor(
      "the reconciler to confirm the payment",
      async () => ((await shopper.orders()).body[0]?.status === "paid" ? true : null),
      TTL_MS * 3,
    );
    const ledger = await h.emulator.ledger();
    expect(ledger.map((pi) => pi.status)).toEqual(["succeeded"]);
    const late = await reportReturn(shopper, key, ledger[0]!.id);
    expect(late.status).toBe(201);
    expect(late.body).toMatchObject({ status: "paid", paymentIntentId: ledger[0]!.id });
    expect((await confirms()) - confirmedBefore).toBe(1);
  });

  it("never returned from the bank: the reconciler records the payment the bank approved, once", async () => {
    const shopper = await h.shopper();
    const checkoutId = await openCheckout(shopper);
    const { key, answer } = await payByBank(shopper, checkoutId);
    const confirmedBefore = await confirms();
    await atTheBank(answer.body.nextAction.url as string, "authorize"); // and the shopper closes the page
    // Nobody reports it: the attempt waits for the shopper until its authentication times out.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await shopper.orders()).body.map((o) => o.status)).toEqual(["pending"]);
    const aged = await h.db.ageAttempt(shopper.customerId!, key, ACTION_TIMEOUT_MS + 1_000);
    expect(aged.next_attempt_in_ms ?? 0).toBeLessThanOrEqual(0);

    const orders = await waitFor(
      "the reconciler to record the payment",
      async () => {
        const list = (await shopper.orders()).body as Array<{ status: string; paymentIntentId: string | null }>;
        return list[0]?.status === "paid" ? list : null;
      },
      TTL_MS * 3,
    );
    const ledger = await h.emulator.ledger();
    expect(ledger.map((pi) => pi.status)).toEqual(["succeeded"]);
    expect(orders.map((o) => [o.status, o.paymentIntentId])).toEqual([["paid", ledger[0]!.id]]);
    // The return, arriving after all: the stored answer, nothing more.
    const late = await reportReturn(shopper, key, ledger[0]!.id);
    expect(late.status).toBe(201);
    expect(await h.emulator.ledger()).toHaveLength(1);
    expect((await confirms()) - confirmedBefore).toBe(1);
  });

  it("with webhooks on, Stripe's event after the shop's confirm settles nothing twice", async () => {
    await deliverTo(h.emulator, h.url);
    try {
      const shopper = await h.shopper();
      const checkoutId = await openCheckout(shopper);
      const deliveredBefore = await h.emulator.webhookStat("delivered");
      const { key, answer } = await payByBank(shopper, checkoutId);
      const confirmedBefore = await confirms();
      const back = await atTheBank(answer.body.nextAction.url as string, "authorize");
      // An event's delivery may hold the attempt as the shopper returns: 409, asked again as the return page asks.
      const returned = await waitFor(
        "the return's answer",
        async () => {
          const answered = await reportReturn(shopper, key, back.searchParams.get("payment_intent"));
          return answered.status === 409 ? null : answered;
        },
        TTL_MS,
      );
      expect(returned.status, JSON.stringify(returned.body)).toBe(201);
      const [intent] = await h.emulator.ledger();
      // The succeeded event exists only once the shop confirmed; its delivery finds the attempt settled.
      const events = (await h.emulator.events()).filter((e) => (e.data.object as { id?: string }).id === intent!.id);
      expect(events.map((e) => e.type).reverse()).toEqual([
        "payment_intent.created",
        "payment_intent.requires_action",
        "payment_intent.succeeded",
      ]);
      await waitFor(
        "the succeeded event's delivery",
        async () => ((await h.emulator.webhookStat("delivered")) - deliveredBefore >= 3 ? true : null),
        TTL_MS * 2,
      );
      expect((await confirms()) - confirmedBefore).toBe(1);
      const orders = (await shopper.orders()).body as Array<{ status: string; attempts: unknown[] }>;
      expect(orders.map((o) => [o.status, o.attempts.length])).toEqual([["paid", 1]]);
    } finally {
      await h.emulator.webhooks({ url: null });
    }
  });

  it("is refused before Stripe when the shop does not take the method's type", async () => {
    const shopper = await h.shopper();
    const answer = await shopper.checkout(newKey(), {
      items: CART,
      confirmationToken: await redirectToken("ideal"),
      paymentMethodType: "sepa_debit",
    });
    expect(answer.status).toBe(400);
    expect(await h.emulator.ledger()).toEqual([]);
  });
});
