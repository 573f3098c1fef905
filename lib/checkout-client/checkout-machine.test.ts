import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { createAttemptStore } from "./attempt-store";
import { CheckoutMachine } from "./checkout-machine";
import { sessionQuery } from "./queries";

const items = [{ sku: "tee-classic", quantity: 1 }];
const paid = { orderId: "o1", status: "paid", amountCents: 2500, currency: "usd", paymentIntentId: "pi_1" };
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

/** A machine over scripted answers, per method and path; no React, no browser. */
function page(
  script: Record<string, Array<() => Response>>,
  options: { cart?: typeof items; now?: number; checkoutFor?: () => Promise<string | null> } = {},
) {
  const sent: Array<{ method: string; path: string; key: string | null }> = [];
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(sessionQuery.queryKey, { customerId: "c1" });
  const store = createAttemptStore(undefined, undefined, () => options.now ?? Date.now());
  const paidItems: string[] = [];
  const machine = new CheckoutMachine({
    client,
    store,
    random: () => 0,
    cartItems: () => options.cart ?? items,
    onPaid: (orderId) => paidItems.push(orderId),
    checkoutFor: options.checkoutFor,
    fetch: async (input, init) => {
      const method = init?.method ?? "GET";
      const path = String(input);
      sent.push({ method, path, key: new Headers(init?.headers).get("idempotency-key") });
      const next = script[`${method} ${path.replace(/[0-9a-f-]{36}/, "{key}")}`]?.shift();
      if (!next) throw new TypeError("Failed to fetch");
      return next();
    },
  });
  const states: string[] = [];
  machine.subscribe(() => states.push(machine.getSnapshot().state.kind));
  return { machine, store, sent, states, paidItems };
}

describe("the checkout machine", () => {
  it("shows each retry of one key, then the order, and closes the attempt", async () => {
    const { machine, store, sent, paidItems } = page({
      "POST /api/checkout": [() => json(409, { error: "in_progress" }, { "Retry-After": "0" }), () => json(201, paid)],
    });
    const retries: number[] = [];
    machine.subscribe(() => {
      const { state } = machine.getSnapshot();
      if (state.kind === "paying") retries.push(state.retry);
    });
    const attempt = store.begin({ items, paymentMethod: "pm_card_visa" }, "c1");
    expect(await machine.send(attempt, { byPress: true })).toEqual({ kind: "paid", order: paid });
    expect(retries).toContain(1);
    expect(new Set(sent.map((s) => s.key))).toEqual(new Set([attempt.key]));
    expect(machine.getSnapshot()).toMatchObject({ state: { kind: "paid" }, attempt: null, isPending: false });
    expect(store.current()).toBeNull();
    expect(paidItems).toEqual(["o1"]);
  });

  it("led to another tab's payment of the checkout: closes its own attempt and shows that payment's order", async () => {
    const other = "0f0f0f0f-0f0f-4f0f-8f0f-0f0f0f0f0f0f";
    const { machine, store, sent, paidItems } = page({
      "POST /api/checkout": [
        () => json(409, { error: "checkout_has_payment", message: "m", status: "in_progress", key: other }),
      ],
      "GET /api/checkout/{key}": [() => json(200, { status: "completed", response: { statusCode: 201, body: paid } })],
    });
    const attempt = store.begin(
      { checkoutId: "c0c0c0c0-0000-4000-8000-000000000000", items, paymentMethod: "pm_card_visa" },
      "c1",
    );
    expect(await machine.send(attempt, { byPress: true })).toEqual({ kind: "paid", order: paid });
    // One press, never retried under its own key; then only reads of the paying attempt.
    expect(sent.map((s) => `${s.method} ${s.key ?? s.path}`)).toEqual([
      `POST ${attempt.key}`,
      `GET /api/checkout/${other}`,
    ]);
    expect(store.current()).toBeNull();
    expect(paidItems).toEqual(["o1"]);
  });

  it("fails a press whose checkout the shop could not hold, sending nothing, and pays with it on the next press", async () => {
    let holds = false;
    const checkoutId = "c0c0c0c0-0000-4000-8000-000000000000";
    const { machine, store, sent } = page(
      { "POST /api/checkout": [() => json(201, paid)] },
      { checkoutFor: async () => (holds ? checkoutId : Promise.reject(new TypeError("Failed to fetch"))) },
    );
    const token = async () => ({ kind: "token" as const, confirmationToken: "ctoken_1" });
    machine.payWithCard(items, token);
    await expect.poll(() => machine.getSnapshot().state.kind).toBe("rejected");
    expect(machine.getSnapshot().state).toMatchObject({ code: "checkout_unavailable" });
    expect(sent).toEqual([]);
    expect(store.current()).toBeNull();

    holds = true;
    machine.payWithCard(items, token);
    await expect.poll(() => machine.getSnapshot().state.kind).toBe("paid");
    expect(sent.map((s) => s.method)).toEqual(["POST"]);
  });

  it("asks the shop, never a new key, when an answer is unusable, and shows what it recorded", async () => {
    const { machine, store, sent, states } = page({
      "POST /api/checkout": [() => json(201, { unexpected: true })],
      "GET /api/checkout/{key}": [() => json(200, { status: "completed", response: { statusCode: 201, body: paid } })],
    });
    const attempt = store.begin({ items, paymentMethod: "pm_card_visa" });
    expect(await machine.send(attempt)).toEqual({ kind: "paid", order: paid });
    expect(sent.map((s) => s.method)).toEqual(["POST", "GET"]);
    expect(states).toContain("checking");
  });

  it("on resume, resends a young attempt for the cart on screen, and only reads one for another cart", async () => {
    const resend = page({ "POST /api/checkout": [() => json(201, paid)] });
    resend.store.begin({ items, paymentMethod: "pm_card_visa" });
    resend.machine.resume();
    resend.machine.resume(); // React's development double run: still one resume
    await expect.poll(() => resend.machine.getSnapshot().state.kind).toBe("paid");
    expect(resend.sent.map((s) => s.method)).toEqual(["POST"]);

    const other = page({ "GET /api/checkout/{key}": [() => json(404, { error: "not_found" })] }, { cart: [] });
    other.store.begin({ items, paymentMethod: "pm_card_visa" });
    other.machine.resume();
    await expect.poll(() => other.store.current()).toBeNull();
    expect(other.sent.map((s) => s.method)).toEqual(["GET"]);
    expect(other.machine.getSnapshot().state.kind).toBe("idle");
  });

  it("keeps a closed page quiet: no retry, no read, no state change", async () => {
    const closeWhileAnswering = () => {
      closing.close(); // the tab is closed while its first request is out
      return json(409, { error: "in_progress" }, { "Retry-After": "0" });
    };
    const {
      machine: closing,
      store,
      sent,
    } = page({
      "POST /api/checkout": [closeWhileAnswering, () => json(201, paid)],
    });
    const attempt = store.begin({ items, paymentMethod: "pm_card_visa" });
    await closing.send(attempt);
    expect(sent.map((s) => s.method)).toEqual(["POST"]);
    expect(store.current()).toEqual(attempt);
    expect(closing.getSnapshot().state.kind).toBe("paying");
  });
});
