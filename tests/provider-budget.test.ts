import { describe, expect, it } from "vitest";
import { useTestApp } from "./helpers/harness";
import { authenticate } from "./helpers/three-d-secure";
import { cart, newKey, Shopper, sleep } from "./helpers/shopper";

/**
 * The provider budget at the shop's door, counted where it matters: at the
 * provider (docs/decisions/0020-a-budget-a-few-cannot-drain.md). One proxy in
 * front (TRUSTED_PROXY_HOPS=1) says each request's client address; the
 * budget is the default 10 calls a second, unscaled.
 */
const h = useTestApp(
  {
    TRUSTED_PROXY_HOPS: "1",
    RATE_LIMIT_SCALE: "1",
    RATE_LIMIT_WINDOW_SECONDS: "86400",
    RATE_LIMIT_CHECKOUTS_PER_ADDRESS: "1000",
    PROVIDER_FRESH_ATTEMPTS_PER_SECOND: "10",
  },
  { ownDatabase: "budget" },
);

describe("the provider budget", () => {
  it("sends Stripe at most 10 creates a second of 60 concurrent fresh keys from one address", async () => {
    // Sixty sessions, each made from an address of its own, all paying from one.
    const shoppers = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const shopper = new Shopper(h.url);
        expect((await shopper.startSession({ "x-forwarded-for": `198.18.7.${i + 1}` })).status).toBe(201);
        return shopper;
      }),
    );
    const answers = await Promise.all(
      shoppers.map((shopper) => shopper.checkout(newKey(), cart(), { "x-forwarded-for": "203.0.113.60" })),
    );
    const admitted = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status !== 201);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.body).toMatchObject({ error: "rate_limited" });
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    expect(admitted.length).toBeGreaterThanOrEqual(1);
    // What the provider saw: one create per admitted key, at most 10 in any second of its clock.
    const customers = new Set(shoppers.map((s) => s.customerId));
    const created = (await h.emulator.ledger()).filter((i) => customers.has(i.metadata.customerId ?? null));
    expect(created).toHaveLength(admitted.length);
    const perSecond = new Map<number, number>();
    for (const intent of created) perSecond.set(intent.created, (perSecond.get(intent.created) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(10);
    // One address alone draws on its share, half of the budget: 5 at once and 5 a second after.
    expect(admitted.length).toBeLessThanOrEqual(5 * perSecond.size + 5);
  });

  it("draws on it for a return from 3-D Secure that asks Stripe: twenty at once from one address are not all let through", async () => {
    // Twenty attempts parked at the bank, each from an address of its own and a second apart in fives.
    const parked: Array<{ shopper: Shopper; key: string; paymentIntent: string }> = [];
    for (let i = 0; i < 20; i++) {
      const from = `198.18.9.${i + 1}`;
      const shopper = new Shopper(h.url);
      expect((await shopper.startSession({ "x-forwarded-for": from })).status).toBe(201);
      const key = newKey();
      let answer = await shopper.checkout(key, cart("pm_card_threeDSecure2Required"), { "x-forwarded-for": from });
      while (answer.status === 429) {
        await sleep(Number(answer.headers.get("retry-after")) * 1000);
        answer = await shopper.checkout(key, cart("pm_card_threeDSecure2Required"), { "x-forwarded-for": from });
      }
      expect(answer.status, JSON.stringify(answer.body)).toBe(202);
      const url = String(answer.body.nextAction.url);
      await authenticate(url, "complete");
      parked.push({
        shopper,
        key,
        paymentIntent: new URL(url).searchParams.get("client_secret")!.split("_secret_")[0]!,
      });
    }
    await sleep(1_100); // a second of the budget with nothing in it
    const returns = await Promise.all(
      parked.map(({ shopper, key, paymentIntent }) =>
        shopper.request("POST", `/api/checkout/${key}/return`, {
          body: { paymentIntent },
          headers: { "x-forwarded-for": "203.0.113.77" },
        }),
      ),
    );
    const paid = returns.filter((r) => r.status === 201);
    const refused = returns.filter((r) => r.status === 429);
    expect(paid.length + refused.length).toBe(20);
    // One address's share of the second: never all twenty at once.
    expect(paid.length).toBeGreaterThanOrEqual(1);
    expect(paid.length).toBeLessThanOrEqual(10);
    for (const answer of refused) expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});
