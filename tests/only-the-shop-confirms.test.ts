import pg from "pg";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { useTestApp } from "./helpers/harness";
import { authenticate } from "./helpers/three-d-secure";
import { cart, newKey, type Shopper } from "./helpers/shopper";

/**
 * Only the shop confirms its intents (docs/contract.md, "3-D Secure"): the
 * client secret a shopper receives for 3-D Secure cannot confirm the intent
 * with the shop's publishable key, as Stripe.js or a card tester would; after
 * the bank the shop confirms it itself, and a decline or a failed
 * authentication settled on the return counts toward too_many_declines. A
 * database of its own, so the brake's counts can be read.
 */
const DECLINES_PER_SESSION = 3;
const h = useTestApp(
  {
    RATE_LIMIT_SCALE: "1",
    RATE_LIMIT_DECLINES_PER_SESSION: String(DECLINES_PER_SESSION),
    // Windows are aligned to the clock: a day's, so no test straddles the start of a new one.
    RATE_LIMIT_DECLINE_WINDOW_SECONDS: "86400",
    // Not this file's subject: the shoppers' budget of 10 calls a second would refuse its payments and returns in a row.
    PROVIDER_FRESH_ATTEMPTS_PER_SECOND: "1000",
  },
  { ownDatabase: "confirms" },
);

/** The SDK with the shop's publishable key: what Stripe.js (or a card tester's script) confirms with. */
function browser(): Stripe {
  const publishable = h.app.emulator.apiKey.replace(/^sk_test_/, "pk_test_");
  return createStripeClient({ secretKey: publishable, apiBase: h.app.emulator.url, maxNetworkRetries: 0 });
}

/** A checkout that meets 3-D Secure: the 202, its bank page, and the client secret the shopper now holds. */
async function waitingForTheBank(shopper: Shopper, paymentMethod: string) {
  const key = newKey();
  const parked = await shopper.checkout(key, cart(paymentMethod));
  expect(parked.status, JSON.stringify(parked.body)).toBe(202);
  const url = String(parked.body.nextAction.url);
  const clientSecret = new URL(url).searchParams.get("client_secret");
  expect(clientSecret).toMatch(/^pi_\w+_secret_\w+$/);
  return { key, url, clientSecret: clientSecret!, paymentIntent: clientSecret!.split("_secret_")[0]! };
}

function returned(shopper: Shopper, key: string, paymentIntent: string) {
  return shopper.request("POST", `/api/checkout/${key}/return`, { body: { paymentIntent } });
}

async function sessionDeclines(customerId: string): Promise<number> {
  const client = new pg.Client({ connectionString: h.app.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ hits: string | null }>(
      `select sum(hits) as hits from admission_counters where rule = 'declines_per_session' and bucket = $1`,
      [customerId],
    );
    return Number(rows[0]?.hits ?? 0);
  } finally {
    await client.end();
  }
}

describe("only the shop confirms its intents", () => {
  it("the client secret and the publishable key cannot confirm the shop's intent; after the bank the shop does", async () => {
    const shopper = await h.shopper();
    const { key, url, clientSecret, paymentIntent } = await waitingForTheBank(shopper, "pm_card_threeDSecure2Required");
    const [created] = await h.emulator.ledger();
    expect(created).toMatchObject({ id: paymentIntent, confirmation_method: "manual", status: "requires_action" });

    // A card tester with the secret confirms the intent straight at Stripe, card after card.
    for (const card of ["pm_card_visa", "pm_card_mastercard"]) {
      const refused = await browser()
        .paymentIntents.confirm(paymentIntent, {
          client_secret: clientSecret,
          payment_method: card,
        } as Stripe.PaymentIntentConfirmParams)
        .then(
          () => null,
          (err: unknown) => err,
        );
      expect(refused).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      expect(refused).toMatchObject({ statusCode: 400, message: expect.stringContaining("publishable key") });
    }
    expect(await h.emulator.stats()).toMatchObject({ charges: 0, declines: 0 });

    // The shopper completes 3-D Secure: the intent waits for the shop, which confirms it on the return.
    const back = await authenticate(url, "complete");
    expect((await h.emulator.ledger())[0]).toMatchObject({ status: "requires_confirmation" });
    const paid = await returned(shopper, key, back.searchParams.get("payment_intent")!);
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(paid.body).toMatchObject({ status: "paid", paymentIntentId: paymentIntent });
    expect(await h.emulator.stats()).toMatchObject({ charges: 1, authenticationsCompleted: 1 });
    expect((await h.emulator.ledger()).map((i) => i.status)).toEqual(["succeeded"]);
  });

  it("declines and failed authentications settled on the return count toward too_many_declines", async () => {
    const shopper = await h.shopper();
    const settled: string[] = [];
    for (let i = 0; i < DECLINES_PER_SESSION; i++) {
      // Declined by the issuer after the bank, or the bank's challenge failed: both count.
      const declined = i % 2 === 0;
      const { key, url, paymentIntent } = await waitingForTheBank(
        shopper,
        declined ? "pm_card_threeDSecureRequiredChargeDeclined" : "pm_card_authenticationRequired",
      );
      await authenticate(url, declined ? "complete" : "fail");
      const answer = await returned(shopper, key, paymentIntent);
      expect(answer.status, JSON.stringify(answer.body)).toBe(402);
      settled.push(String(answer.body.error));
      expect(await sessionDeclines(shopper.customerId!)).toBe(i + 1);
    }
    expect(settled).toEqual(["card_declined", "authentication_failed", "card_declined"]);
    // Each failure closed its intent for good; nothing was charged.
    expect((await h.emulator.ledger()).map((i) => i.status)).toEqual(["canceled", "canceled", "canceled"]);
    expect(await h.emulator.stats()).toMatchObject({ charges: 0, declines: 2, authenticationsFailed: 1 });

    const before = (await h.emulator.ledger()).length;
    const refused = await shopper.checkout(newKey(), cart("pm_card_visa"));
    expect(refused.status, JSON.stringify(refused.body)).toBe(429);
    expect(refused.body).toMatchObject({ error: "too_many_declines" });
    expect((await h.emulator.ledger()).length).toBe(before);
  });
});
