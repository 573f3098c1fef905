import { randomUUID } from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { sleep } from "@/lib/sleep";
import { useTestApp } from "./helpers/harness";
import { cart, newKey, Shopper, type RequestOptions } from "./helpers/shopper";

/**
 * The abuse limits at the shop's door (docs/contract.md, "Abuse limits"):
 * session creation per address, fresh checkout keys per session, open
 * attempts per customer, and 3-D Secure returns per session. Over a limit:
 * 429 rate_limited with Retry-After, and nothing stored. One proxy in front
 * (TRUSTED_PROXY_HOPS=1) tells each test's client address, so tests never
 * share a count; a database of its own, so its rows can be counted.
 */
const h = useTestApp(
  {
    TRUSTED_PROXY_HOPS: "1",
    RATE_LIMIT_SCALE: "1",
    // The checkout's windows are aligned to the clock: a day's, so no test straddles the start of a new one.
    RATE_LIMIT_WINDOW_SECONDS: "86400",
    RATE_LIMIT_SESSIONS_PER_ADDRESS: "5",
    RATE_LIMIT_CHECKOUTS_PER_ADDRESS: "100",
    RATE_LIMIT_CHECKOUTS_PER_SESSION: "3",
    RATE_LIMIT_RETURNS_PER_ADDRESS: "100",
    RATE_LIMIT_RETURNS_PER_SESSION: "3",
    CHECKOUT_MAX_OPEN_ATTEMPTS: "2",
    RATE_LIMIT_DECLINES_PER_SESSION: "2",
    PROVIDER_BREAKER_SECONDS: "5",
    // Its tests follow one another faster than shoppers: the provider budget is tests/provider-budget.test.ts's.
    PROVIDER_FRESH_ATTEMPTS_PER_SECOND: "1000",
    IDEMPOTENCY_RETAKE_INTERVAL_MS: "2000",
  },
  { ownDatabase: "limits" },
);

/** An address no other request of this file uses (from 198.18.0.0/15, set aside for tests of networks). */
let addresses = Math.floor(Math.random() * 50_000);
const address = () => {
  addresses += 1;
  return `198.18.${Math.floor(addresses / 250) % 256}.${1 + (addresses % 250)}`;
};

/** A shopper whose requests all come through the proxy from one address (a header of a request's own overrides it). */
class ShopperFrom extends Shopper {
  constructor(
    baseUrl: string,
    readonly from: string,
  ) {
    super(baseUrl);
  }

  override request<T>(method: string, path: string, options: RequestOptions = {}) {
    return super.request<T>(method, path, {
      ...options,
      headers: { "x-forwarded-for": this.from, ...options.headers },
    });
  }
}

/** A shopper whose requests come through the proxy from `from`. */
async function shopperFrom(from: string): Promise<Shopper> {
  const shopper = new ShopperFrom(h.url, from);
  const answer = await shopper.startSession();
  expect(answer.status).toBe(201);
  return shopper;
}

function expectRateLimited(answer: { status: number; headers: Headers; body: unknown }) {
  expect(answer.status).toBe(429);
  expect(answer.body).toMatchObject({ error: "rate_limited" });
  const retryAfter = Number(answer.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
  expect((answer.body as { retryAfterSeconds: number }).retryAfterSeconds).toBe(retryAfter);
}

describe("abuse limits", () => {
  it("a burst of session creations from one address meets 429 with Retry-After, and creates no customer", async () => {
    const from = `client-${randomUUID()}`;
    const customers = async () => {
      const client = new pg.Client({ connectionString: h.app.env.DATABASE_URL });
      await client.connect();
      try {
        return Number((await client.query<{ n: string }>("select count(*) as n from customers")).rows[0]!.n);
      } finally {
        await client.end();
      }
    };
    const before = await customers();
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await new Shopper(h.url).startSession({ "x-forwarded-for": from }));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 429, 429, 429]);
    for (const refused of answers.slice(5)) {
      expectRateLimited(refused);
      expect(refused.headers.getSetCookie()).toEqual([]);
    }
    expect((await customers()) - before).toBe(5);
    // Another address has a count of its own; a shopper who has a session keeps it.
    expect((await new Shopper(h.url).startSession({ "x-forwarded-for": address() })).status).toBe(201);
  });

  it("sessions from many /64s of one IPv6 /56 are counted as one address once the prefix floods", async () => {
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:${(Math.floor(Math.random() * 255) << 8).toString(16)}`;
    const statuses = [];
    // Each from a /64 of its own (the last byte of the fourth hextet): 16 count apart, then the /56 as one.
    for (let n = 0; n < 30; n++) {
      const from = `${prefix.replace(/[0-9a-f]+$/, (h) => (parseInt(h, 16) + n).toString(16))}::${n + 1}`;
      statuses.push((await new Shopper(h.url).startSession({ "x-forwarded-for": from })).status);
    }
    expect(statuses).toEqual([...Array<number>(16 + 5).fill(201), ...Array<number>(9).fill(429)]);
  });

  it("a shopper over the fresh-key limit gets 429 and nothing is stored; their first attempts still replay", async () => {
    const shopper = await shopperFrom(address());
    const keys = [newKey(), newKey(), newKey(), newKey()];
    const statuses = [];
    for (const key of keys) statuses.push((await shopper.checkout(key, cart())).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    const refused = await shopper.checkout(keys[3]!, cart());
    expectRateLimited(refused);
    expect(await h.db.stored(null, keys[3]!)).toEqual({ keys: 0, orders: 0 });
    expect((await h.emulator.ledger()).filter((i) => i.metadata.customerId === shopper.customerId)).toHaveLength(3);
    // A retry of an attempt it already made is never limited.
    const replay = await shopper.checkout(keys[0]!, cart());
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });

  it("a shopper with as many open attempts as allowed gets 429 for another, not for the open ones", async () => {
    const shopper = await shopperFrom(address());
    const open = [newKey(), newKey()];
    for (const key of open)
      expect((await shopper.checkout(key, cart("pm_card_threeDSecure2Required"))).status).toBe(202);
    const third = newKey();
    const refused = await shopper.checkout(third, cart());
    expectRateLimited(refused);
    expect((refused.body as { message: string }).message).toMatch(/still open/);
    expect(await h.db.stored(null, third)).toEqual({ keys: 0, orders: 0 });
    expect((await shopper.checkout(open[0]!, cart("pm_card_threeDSecure2Required"))).status).toBe(202);
  });

  it("3-D Secure returns are limited per session, before the provider is asked", async () => {
    const shopper = await shopperFrom(address());
    const key = newKey();
    expect((await shopper.checkout(key, cart("pm_card_threeDSecure2Required"))).status).toBe(202);
    const report = () => shopper.request("POST", `/api/checkout/${key}/return`, { body: { paymentIntent: null } });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await report()).status);
    expect(statuses.every((s) => s !== 429)).toBe(true);
    const requestsBefore = (await h.emulator.stats()).requests;
    expectRateLimited(await report());
    expect((await h.emulator.stats()).requests).toBe(requestsBefore);
  });
});

describe("the card-testing brake and the provider's limits", () => {
  it("refuses a session's fresh keys past its declines with 429 too_many_declines; its declines still replay", async () => {
    const shopper = await shopperFrom(address());
    const declined = [newKey(), newKey()];
    for (const key of declined) expect((await shopper.checkout(key, cart("pm_card_chargeDeclined"))).status).toBe(402);
    const fresh = newKey();
    const refused = await shopper.checkout(fresh, cart());
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: "too_many_declines" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await h.db.stored(null, fresh)).toEqual({ keys: 0, orders: 0 });
    const replay = await shopper.checkout(declined[0]!, cart("pm_card_chargeDeclined"));
    expect(replay.status).toBe(402);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });

  it("retakes a key released after an unknown outcome no sooner than the interval: earlier retries are 409", async () => {
    const shopper = await shopperFrom(address());
    const key = newKey();
    await h.emulator.faults({ failNext: { status: 500, times: 3 } });
    expect((await shopper.checkout(key, cart())).status).toBe(503);
    const requestsBefore = (await h.emulator.stats()).requests;
    const early = await shopper.checkout(key, cart());
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ error: "in_progress" });
    expect((await h.emulator.stats()).requests).toBe(requestsBefore); // Stripe was not asked again
    // Once the interval has passed the same key is retaken and pays, once.
    let answer = early;
    for (const started = Date.now(); answer.status === 409 && Date.now() - started < 10_000;) {
      await sleep(200); // a poll's pace: the loop ends on the answer, not on the clock
      answer = await shopper.checkout(key, cart());
    }
    expect(answer.status).toBe(201);
    expect((await h.emulator.ledger()).filter((i) => i.metadata.customerId === shopper.customerId)).toHaveLength(1);
  });

  it("counts payment methods that do not exist as declines: past the session's, 429 too_many_declines", async () => {
    const shopper = await shopperFrom(address());
    for (const made of ["pm_card_madeUp1", "pm_card_madeUp2"]) {
      const failed = await shopper.checkout(newKey(), cart(made));
      expect(failed.status).toBe(402);
      expect(failed.body).toMatchObject({ error: "payment_failed", code: "resource_missing" });
    }
    const fresh = newKey();
    expect(await shopper.checkout(fresh, cart())).toMatchObject({ status: 429, body: { error: "too_many_declines" } });
    expect(await h.db.stored(null, fresh)).toEqual({ keys: 0, orders: 0 });
  });

  // Last in this file: the breaker stays open for PROVIDER_BREAKER_SECONDS in this server.
  it("sheds fresh attempts while Stripe answers 429, before asking it again; known keys still replay", async () => {
    const paying = await shopperFrom(address());
    const paidKey = newKey();
    expect((await paying.checkout(paidKey, cart())).status).toBe(201);

    await h.emulator.faults({ failNext: { status: 429, times: 1 } });
    const first = await shopperFrom(address());
    const busy = await first.checkout(newKey(), cart());
    expect(busy.status).toBe(503);
    expect((await h.emulator.snapshot()).stats).toMatchObject({ failedInjected: 1 }); // Stripe really said 429

    const requestsBefore = (await h.emulator.stats()).requests;
    const second = await shopperFrom(address());
    const shedKey = newKey();
    const shed = await second.checkout(shedKey, cart());
    expect(shed.status).toBe(503);
    expect(shed.body).toMatchObject({ error: "payment_unavailable" });
    expect(Number(shed.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await h.db.stored(null, shedKey)).toEqual({ keys: 0, orders: 0 });
    const replay = await paying.checkout(paidKey, cart());
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((await h.emulator.stats()).requests).toBe(requestsBefore);
  });
});
