import { describe, expect, it } from "vitest";
import { useTestApp } from "./helpers/harness";
import { delta, scrape } from "./helpers/metrics";
import { cart, newKey, type Answer, type Shopper } from "./helpers/shopper";

/**
 * A duplicate of an attempt the server runs is handed to the route's handler
 * before Next.js (the front door). `/api/checkout?via=next` reaches the same
 * route through Next.js (the door takes the exact path only), so each answer
 * is compared with the one Next.js gives to the same request at the same
 * moment.
 */
const h = useTestApp();
const DOOR = "idempotency_front_door_total";

/**
 * What differs only by how an answer was sent: framing, Next.js's gzip of
 * even a short body (the client reads the same bytes), and its Vary for the
 * pages' router and that gzip, which no cache applies to an answer to a POST.
 */
const TRANSPORT = new Set([
  "date",
  "connection",
  "keep-alive",
  "content-length",
  "transfer-encoding",
  "content-encoding",
  "vary",
]);
const headersOf = (answer: Answer) =>
  Object.fromEntries([...answer.headers.entries()].filter(([name]) => !TRANSPORT.has(name)));

async function bothWays(shopper: Shopper, key: string, body: unknown, headers: Record<string, string> = {}) {
  const before = await scrape(h.url);
  const door = await shopper.checkout(key, body, headers);
  const afterDoor = await scrape(h.url);
  const next = await shopper.request("POST", "/api/checkout?via=next", {
    body,
    headers: { "idempotency-key": key, ...headers },
  });
  const afterNext = await scrape(h.url);
  // The door answered the first and let the second through.
  expect(delta(before, afterDoor, DOOR)).toBe(1);
  expect(delta(afterDoor, afterNext, DOOR)).toBe(0);
  expect({ status: door.status, body: door.body }).toEqual({ status: next.status, body: next.body });
  expect(headersOf(door)).toEqual(headersOf(next));
  return door;
}

describe("duplicates answered before Next.js", () => {
  it("answer a running attempt's duplicates, a changed body and a proxied https request as Next.js does", async () => {
    await h.emulator.faults({ gate: true });
    const shopper = await h.shopper();
    const key = newKey();
    const first = shopper.checkout(key, cart());
    await h.emulator.held(1); // the PaymentIntent's create, at Stripe's gate

    const duplicate = await bothWays(shopper, key, cart());
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error).toBe("in_progress");
    expect(duplicate.headers.get("retry-after")).toBe(String(duplicate.body.retryAfterSeconds));
    expect(duplicate.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(duplicate.headers.get("strict-transport-security")).toBeNull();

    const changed = await bothWays(shopper, key, cart("pm_card_visa", [{ sku: "tee-classic", quantity: 5 }]));
    expect(changed.status).toBe(422);
    expect(changed.body.error).toBe("idempotency_key_reuse");

    const proxied = await bothWays(shopper, key, cart(), { "x-forwarded-proto": "https" });
    expect(proxied.headers.get("strict-transport-security")).toMatch(/^max-age=/);

    // Not JSON: the handler's own refusal, the same both ways.
    const garbled = await bothWays(shopper, key, "{", { "content-type": "application/json" });
    expect(garbled.status).toBe(400);

    expect(await h.emulator.stats()).toMatchObject({ charges: 0, delayed: 1 });
    await h.emulator.faults({ gate: false });
    expect((await first).status).toBe(201);

    // Once the attempt has ended, its replay goes through Next.js.
    const before = await scrape(h.url);
    const replay = await shopper.checkout(key, cart());
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(delta(before, await scrape(h.url), DOOR)).toBe(0);
    expect(await h.emulator.stats()).toMatchObject({ charges: 1 });
  });
});
