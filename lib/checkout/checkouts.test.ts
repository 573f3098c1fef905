import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { fingerprint, IdempotencyEngine } from "@checkout/idempotency";
import { checkoutGate } from "../abuse/admission";
import { createPrismaClient, engineDatabase } from "../db";
import { attemptId } from "./attempt-id";
import { findCheckout, findLivePayment, priceCheckout } from "./checkouts";
import { createAttemptOrder } from "./orders";
import { CHECKOUT_ENDPOINT } from "./request";

/**
 * The checkout's one live payment, held by the claim's own statement against
 * a real PostgreSQL: racing fresh keys for one checkout, one is admitted; a
 * failed one frees the checkout; another customer's checkout is refused.
 */
const prisma = createPrismaClient(inject("databaseUrl"));
const engine = new IdempotencyEngine(engineDatabase(prisma), {
  inProgressTtlMs: 60_000,
  retentionHours: 24,
  attemptDeadlineMs: 1_800_000,
});
afterAll(() => prisma.$disconnect());

const items = [{ sku: "mug-enamel", quantity: 2 }];

async function newCheckout(customerId: string) {
  const priced = await priceCheckout(prisma, { customerId, checkoutId: null, items });
  if (priced.kind !== "checkout") throw new Error(`expected a checkout, got ${priced.kind}`);
  return priced.checkout;
}

const claimFor = (customerId: string, checkoutId: string, key = randomUUID()) => {
  const scope = { subjectId: customerId, endpoint: CHECKOUT_ENDPOINT, key };
  const body = { checkoutId, paymentMethod: "pm_card_visa" };
  return engine
    .claim(scope, fingerprint(body), checkoutGate(customerId, checkoutId))
    .then((claim) => ({ claim, scope }));
};

describe("a checkout's one live payment", () => {
  it("is priced from the catalogue and read back by its customer only", async () => {
    const customerId = randomUUID();
    const checkout = await newCheckout(customerId);
    expect(checkout).toMatchObject({ amountCents: 3600, currency: "usd", status: "open" });
    expect(checkout.lines).toEqual([{ sku: "mug-enamel", name: "Enamel Mug", unitPriceCents: 1800, quantity: 2 }]);
    expect(await findCheckout(prisma, customerId, checkout.id)).toMatchObject({ id: checkout.id, attempts: [] });
    expect(await findCheckout(prisma, randomUUID(), checkout.id)).toBeNull();
  });

  it("admits one of 20 racing fresh keys; the others are refused in their own statement", async () => {
    const customerId = randomUUID();
    const checkout = await newCheckout(customerId);
    const claims = await Promise.all(Array.from({ length: 20 }, () => claimFor(customerId, checkout.id)));
    const kinds = claims.map(({ claim }) => (claim.kind === "refused" ? claim.rule : claim.kind));
    expect(kinds.filter((k) => k === "claimed")).toHaveLength(1);
    expect(kinds.filter((k) => k === "checkout_has_payment")).toHaveLength(19);
    const winner = claims.find(({ claim }) => claim.kind === "claimed")!;
    expect(await findLivePayment(prisma, checkout.id)).toEqual({
      key: winner.scope.key,
      status: "in_progress",
      orderId: null,
    });

    // The winner's order is priced from the checkout's lines and names it.
    if (winner.claim.kind !== "claimed") throw new Error("unreachable");
    const written = await createAttemptOrder(prisma, {
      owner: winner.claim.owner,
      orderId: attemptId(winner.scope),
      customerId,
      items: [],
      checkoutId: checkout.id,
      key: winner.scope.key,
      paymentMethod: "pm_card_visa",
      returnUrl: "http://127.0.0.1:3000/checkout/return",
    });
    expect(written).toMatchObject({ kind: "order", order: { amountCents: 3600, currency: "usd" } });

    // Declined: the record fails, and the checkout may be paid again.
    expect(
      await engine.finish(winner.claim.owner, {
        status: "failed",
        response: { statusCode: 402, body: "{}", headers: {} },
      }),
    ).toBe(true);
    expect(await findLivePayment(prisma, checkout.id)).toBeNull();
    const again = await claimFor(customerId, checkout.id);
    expect(again.claim.kind).toBe("claimed");
  });

  it("refuses another customer's checkout and an unknown one as unknown_checkout, writing nothing", async () => {
    const checkout = await newCheckout(randomUUID());
    const stranger = randomUUID();
    for (const id of [checkout.id, randomUUID()]) {
      const { claim, scope } = await claimFor(stranger, id);
      expect(claim).toMatchObject({ kind: "refused", rule: "unknown_checkout" });
      expect(await engine.find(scope)).toBeNull();
    }
  });

  it("changes its lines only while no payment is live", async () => {
    const customerId = randomUUID();
    const checkout = await newCheckout(customerId);
    const one = [{ sku: "mug-enamel", quantity: 1 }];
    expect(await priceCheckout(prisma, { customerId, checkoutId: checkout.id, items: one })).toMatchObject({
      kind: "checkout",
      checkout: { id: checkout.id, amountCents: 1800 },
    });
    await claimFor(customerId, checkout.id);
    expect(await priceCheckout(prisma, { customerId, checkoutId: checkout.id, items })).toEqual({
      kind: "has_payment",
    });
    expect(await priceCheckout(prisma, { customerId: randomUUID(), checkoutId: checkout.id, items })).toEqual({
      kind: "not_found",
    });
  });

  it("writes no order when the items sent beside the checkout are not its lines", async () => {
    const customerId = randomUUID();
    const checkout = await newCheckout(customerId);
    const write = async (sent: typeof items) => {
      const { claim, scope } = await claimFor(customerId, checkout.id);
      if (claim.kind !== "claimed") throw new Error(`expected a claim, got ${claim.kind}`);
      const written = await createAttemptOrder(prisma, {
        owner: claim.owner,
        orderId: attemptId(scope),
        customerId,
        items: sent,
        checkoutId: checkout.id,
        key: scope.key,
        paymentMethod: "pm_card_visa",
        returnUrl: "http://127.0.0.1:3000/checkout/return",
      });
      if (written.kind !== "order") await engine.abandon(claim.owner);
      return written;
    };
    expect(await write([{ sku: "mug-enamel", quantity: 3 }])).toMatchObject({
      kind: "invalid",
      issues: [{ path: ["items"] }],
    });
    expect(await write(items)).toMatchObject({ kind: "order", order: { amountCents: 3600 } });
  });
});
