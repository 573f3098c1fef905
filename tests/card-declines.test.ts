import pg from "pg";
import { describe, expect, it } from "vitest";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { useTestApp } from "./helpers/harness";
import { cart, newKey, Shopper, tokenCart } from "./helpers/shopper";

/**
 * The card-testing brake per card (docs/contract.md, "Abuse limits"): the
 * shop reads the fingerprint of the card a fresh checkout would pay with from
 * Stripe, counts its declines whatever session and address they come from,
 * and past RATE_LIMIT_DECLINES_PER_CARD refuses a fresh key for that card
 * with 429 too_many_declines before Stripe is asked to charge it. A database
 * of its own, so its counts can be read; each shopper through the proxy from
 * an address of its own, so only the card's count can refuse.
 */
const DECLINES_PER_CARD = 20;
const h = useTestApp(
  {
    TRUSTED_PROXY_HOPS: "1",
    RATE_LIMIT_SCALE: "1",
    // Windows are aligned to the clock: a day's, so no test straddles the start of a new one.
    RATE_LIMIT_DECLINE_WINDOW_SECONDS: "86400",
    RATE_LIMIT_DECLINES_PER_CARD: String(DECLINES_PER_CARD),
    // Not this file's subject: the shop-wide budget of 10 fresh attempts a second would refuse its declines in a row.
    PROVIDER_FRESH_ATTEMPTS_PER_SECOND: "1000",
    STRIPE_MAX_NETWORK_RETRIES: "0",
  },
  { ownDatabase: "cards" },
);

let next = 0;
/** A fresh session, through the proxy, from an address no other shopper of this file uses. */
async function stranger(): Promise<Shopper> {
  next += 1;
  return shopperFrom(`198.51.${Math.floor(next / 250)}.${1 + (next % 250)}`);
}

/** A fresh session, through the proxy, from `from`. */
async function shopperFrom(from: string): Promise<Shopper> {
  // Every request of it from that address, as the proxy would name it: not only the session's.
  const shopper = Object.assign(new Shopper(h.url), {
    checkout: (key: string | null, body: unknown, headers: Record<string, string> = {}) =>
      Shopper.prototype.checkout.call(shopper, key, body, { "x-forwarded-for": from, ...headers }),
  });
  expect((await shopper.startSession({ "x-forwarded-for": from })).status).toBe(201);
  return shopper;
}

/** A PaymentMethod id nobody has: a card-tester's guess. */
const madeUp = () => `pm_madeup_${newKey().replaceAll("-", "")}`;

const stripe = () =>
  createStripeClient({ secretKey: h.app.emulator.apiKey, apiBase: h.app.emulator.url, maxNetworkRetries: 0 });
/** A ConfirmationToken for a test card, as a browser's Payment Element would make one. */
const token = async (paymentMethod: string) =>
  (await stripe().testHelpers.confirmationTokens.create({ payment_method: paymentMethod })).id;

async function cardDeclines(): Promise<Array<{ bucket: string; hits: number }>> {
  const client = new pg.Client({ connectionString: h.app.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ bucket: string; hits: string }>(
      `select bucket, sum(hits) as hits from admission_counters where rule = 'declines_per_card' group by bucket`,
    );
    return rows.map((row) => ({ bucket: row.bucket, hits: Number(row.hits) }));
  } finally {
    await client.end();
  }
}

describe("declines counted per card", () => {
  it("20 declines of one card from 20 sessions and addresses: its next fresh key is 429 too_many_declines", async () => {
    const lost = "pm_card_chargeDeclinedLostCard";
    for (let i = 0; i < DECLINES_PER_CARD; i++) {
      // Typed into the element (a ConfirmationToken) or sent as a PaymentMethod: one card either way.
      const body = i % 2 === 0 ? tokenCart(await token(lost)) : cart(lost);
      const declined = await (await stranger()).checkout(newKey(), body);
      expect(declined.status, `decline ${i + 1}: ${JSON.stringify(declined.body)}`).toBe(402);
      // A lost card is told as a generic decline (lib/payments/shopper-decline.ts), and counted as its card's.
      expect(declined.body).toMatchObject({ error: "card_declined", declineCode: "generic_decline" });
    }
    const counted = await cardDeclines();
    expect(counted).toEqual([{ bucket: expect.stringMatching(/^[A-Za-z0-9]{16}$/), hits: DECLINES_PER_CARD }]);

    const shopper = await stranger();
    const intentsBefore = (await h.emulator.ledger()).length;
    const key = newKey();
    const refused = await shopper.checkout(key, tokenCart(await token(lost)));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: "too_many_declines" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Refused before anything was stored or charged.
    expect(await h.db.stored(shopper.customerId, key)).toEqual({ keys: 0, orders: 0 });
    expect((await h.emulator.ledger()).length).toBe(intentsBefore);

    // The card is refused, not the shopper: another card still pays, another declining card is still asked.
    expect((await shopper.checkout(newKey(), cart("pm_card_visa"))).status).toBe(201);
    expect((await (await stranger()).checkout(newKey(), cart("pm_card_chargeDeclined"))).status).toBe(402);
    expect((await cardDeclines()).map((c) => c.hits).sort((a, b) => a - b)).toEqual([1, DECLINES_PER_CARD]);
  });

  it("a fresh checkout asks Stripe for its card, then charges it; its duplicate asks nothing", async () => {
    const shopper = await stranger();
    const key = newKey();
    const body = tokenCart(await token("pm_card_visa"));
    const before = (await h.emulator.stats()).requests;
    expect((await shopper.checkout(key, body)).status).toBe(201);
    expect((await h.emulator.stats()).requests - before).toBe(2); // the token's card, then the charge
    const replay = await shopper.checkout(key, body);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((await h.emulator.stats()).requests - before).toBe(2);
  });

  it("made-up credentials ask Stripe nothing for a known key, and no more than the session's fresh attempts otherwise", async () => {
    const shopper = await stranger();
    const key = newKey();
    expect((await shopper.checkout(key, cart("pm_card_visa"))).status).toBe(201);
    // The known key resent with credentials nobody has: the claim answers it (422), no card is looked up.
    const before = (await h.emulator.stats()).requests;
    for (let i = 0; i < 12; i++) expect((await shopper.checkout(key, cart(madeUp()))).status).toBe(422);
    expect((await h.emulator.stats()).requests - before).toBe(0);

    // Every open slot taken by a payment waiting for 3-D Secure: fresh keys are refused, each
    // with a credential of its own. Their lookups stop at the session's fresh attempts per window.
    for (let i = 0; i < 3; i++)
      expect((await shopper.checkout(newKey(), cart("pm_card_threeDSecure2Required"))).status).toBe(202);
    const parked = (await h.emulator.stats()).requests;
    const refused: number[] = [];
    for (let i = 0; i < 30; i++) refused.push((await shopper.checkout(newKey(), cart(madeUp()))).status);
    expect(new Set(refused)).toEqual(new Set([429]));
    const lookups = (await h.emulator.stats()).requests - parked;
    // 10 fresh attempts a minute (RATE_LIMIT_CHECKOUTS_PER_SESSION), 4 of them spent above; twice that if a minute began meanwhile.
    expect(lookups).toBeGreaterThan(0);
    expect(lookups).toBeLessThanOrEqual(2 * 10 - 4);
  });

  it("made-up credentials from many sessions of one address ask Stripe no more than the address's fresh attempts", async () => {
    // The address at its declines (30), from three sessions, each card under its own limit.
    const address = "192.0.2.77";
    const started = Date.now();
    const cards = [
      "pm_card_chargeDeclinedExpiredCard",
      "pm_card_chargeDeclinedIncorrectCvc",
      "pm_card_chargeDeclinedInsufficientFunds",
    ];
    for (const card of cards) {
      const shopper = await shopperFrom(address);
      for (let i = 0; i < 10; i++) expect((await shopper.checkout(newKey(), cart(card))).status).toBe(402);
    }
    // Seventeen more sessions (the address's 20 a minute), ten fresh keys each, every one refused.
    const before = (await h.emulator.stats()).requests;
    const statuses = new Set<number>();
    for (let s = 0; s < 17; s++) {
      const shopper = await shopperFrom(address);
      for (let i = 0; i < 10; i++) statuses.add((await shopper.checkout(newKey(), cart(madeUp()))).status);
    }
    expect(statuses).toEqual(new Set([429]));
    const lookups = (await h.emulator.stats()).requests - before;
    // Never more than the address's fresh attempts: 60 per clock minute (RATE_LIMIT_CHECKOUTS_PER_ADDRESS) in
    // each minute the test touched, which on a busy host is more than two.
    const minutes = Math.floor(Date.now() / 60_000) - Math.floor(started / 60_000) + 1;
    expect(lookups).toBeGreaterThan(0);
    expect(lookups).toBeLessThanOrEqual(minutes * 60);
  });

  it("when Stripe cannot say which card it is, a fresh key is 503 with nothing stored; the same key then pays", async () => {
    const shopper = await stranger();
    const key = newKey();
    const body = tokenCart(await token("pm_card_visa"));
    await h.emulator.faults({ failNext: { status: 500, times: 1 } });
    const unknown = await shopper.checkout(key, body);
    expect(unknown.status, JSON.stringify(unknown.body)).toBe(503);
    expect(unknown.body).toMatchObject({ error: "payment_unavailable" });
    expect((await h.emulator.stats()).failedInjected).toBe(1); // the card's lookup really failed
    expect(await h.db.stored(shopper.customerId, key)).toEqual({ keys: 0, orders: 0 });

    const retry = await shopper.checkout(key, body);
    expect(retry.status).toBe(201);
    expect((await h.emulator.ledger()).filter((i) => i.metadata.customerId === shopper.customerId)).toHaveLength(1);
  });
});
