import { describe, expect, it } from "vitest";
import type { AttemptLog } from "@/tools/chaos/journal";
import type { Evidence } from "./evidence";
import { check, type Invariant } from "./invariants";

/**
 * The checker's own test: evidence fabricated to contain exactly one kind of
 * failure must be reported as exactly that invariant, with the attempt's id.
 * (The end-to-end version, a broken build caught in a real soak, is in
 * tests/chaos.test.ts.)
 */
const A = "11111111-1111-4111-8111-111111111111";
const B = "22222222-2222-4222-8222-222222222222";
const CUSTOMER = "c0000000-0000-4000-8000-000000000000";

function attempt(id: string, answers: AttemptLog["answers"]): AttemptLog {
  return {
    id,
    customerId: CUSTOMER,
    card: "visa",
    credential: "pm_card_visa",
    amountCents: 2500,
    behaviours: [],
    answers,
    outcome: "paid",
  };
}
const post = (status: number | null, body: unknown) => ({ at: 0, method: "POST", path: "/api/checkout", status, body });
const paidBody = (pi: string, orderId = "o-a") => ({
  orderId,
  status: "paid",
  amountCents: 2500,
  currency: "usd",
  paymentIntentId: pi,
});
const intent = (id: string, key: string, status = "succeeded") => ({
  id,
  status,
  amount: 2500,
  metadata: { idempotencyKey: key, customerId: CUSTOMER, orderId: `order-of-${id}` },
});

/** One paid attempt A and one declined attempt B, all consistent. */
function clean(): Evidence {
  return {
    attempts: [
      attempt(A, [post(null, null), post(409, { error: "in_progress" }), post(201, paidBody("pi_a"))]),
      { ...attempt(B, [post(402, { error: "card_declined", declineCode: "generic_decline" })]), outcome: "declined" },
    ],
    intents: [intent("pi_a", A), intent("pi_b", B, "requires_payment_method")],
    refunds: [],
    events: [{ id: "evt_1", type: "payment_intent.succeeded" }],
    orders: [
      { id: "o-a", customerId: CUSTOMER, status: "paid", amountCents: 2500, paymentIntentId: "pi_a", attemptKey: A },
      { id: "o-b", customerId: CUSTOMER, status: "failed", amountCents: 2500, paymentIntentId: "pi_b", attemptKey: B },
    ],
    keys: [
      { key: A, subjectId: CUSTOMER, status: "completed", lockToken: "t", responseStatus: 201 },
      { key: B, subjectId: CUSTOMER, status: "failed", lockToken: "t", responseStatus: 402 },
    ],
    inbox: [{ eventId: "evt_1", processedCount: 1, processed: true }],
  };
}

function only(evidence: Evidence): Partial<Record<Invariant, number>> {
  const { counts } = check(evidence);
  return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
}

describe("the chaos checker", () => {
  it("finds nothing wrong with consistent evidence", () => {
    expect(check(clean()).violations).toEqual([]);
  });

  it("1: catches a second charge for one attempt (the claim committed with the charge)", () => {
    const e = clean();
    e.intents.push(intent("pi_a2", A));
    e.orders.push({
      id: "o-a2",
      customerId: CUSTOMER,
      status: "paid",
      amountCents: 2500,
      paymentIntentId: "pi_a2",
      attemptKey: null,
    });
    expect(only(e)).toEqual({ one_charge_per_attempt: 1 });
    expect(check(e).violations[0]).toMatchObject({ subject: A, evidence: expect.stringContaining("pi_a2") });
  });

  it("1: links charges a build did not tag to the attempt whose shopper was shown them", () => {
    const e = clean();
    e.intents = [
      { ...intent("pi_a", A), metadata: { customerId: CUSTOMER } },
      { ...intent("pi_a2", A), metadata: { customerId: CUSTOMER } },
      intent("pi_b", B, "requires_payment_method"),
    ];
    e.attempts[0]!.answers.push(post(201, paidBody("pi_a2", "o-a2")));
    e.orders.push({
      id: "o-a2",
      customerId: CUSTOMER,
      status: "paid",
      amountCents: 2500,
      paymentIntentId: "pi_a2",
      attemptKey: null,
    });
    expect(only(e)).toEqual({ one_charge_per_attempt: 1 });
  });

  it("2: catches a charge with no paid order, and a refund without a reason", () => {
    const e = clean();
    e.intents.push(intent("pi_orphan", B));
    expect(only(e)).toMatchObject({ charge_has_one_paid_order: 1 });
    const r = clean();
    r.intents.push(intent("pi_late", B));
    r.refunds.push({
      id: "re_1",
      payment_intent: "pi_late",
      amount: 2500,
      status: "succeeded",
      reason: null,
      metadata: {},
    });
    expect(only(r)).toEqual({ charge_has_one_paid_order: 1 });
    r.refunds[0]!.reason = "requested_by_customer";
    expect(only(r)).toEqual({});
  });

  it("3: catches a 201 without a charge, and a decline shown for a charge that stands", () => {
    const e = clean();
    e.attempts[0]!.answers.push(post(201, paidBody("pi_never")));
    expect(only(e)).toEqual({ shopper_saw_the_truth: 1 });

    const d = clean();
    d.intents[1] = intent("pi_b", B); // B's charge went through after all…
    d.orders[1] = { ...d.orders[1]!, status: "paid" };
    expect(only(d)).toEqual({ shopper_saw_the_truth: 1 }); // …but its shopper was told "declined"
    expect(check(d).violations[0]).toMatchObject({ subject: B });
  });

  it("3: the answer to GET /api/checkout/{key} counts as shown", () => {
    const e = clean();
    e.attempts[1]!.answers.push({
      at: 1,
      method: "GET",
      path: `/api/checkout/${B}`,
      status: 200,
      body: { status: "completed", response: { statusCode: 201, body: paidBody("pi_b") } },
    });
    expect(only(e)).toEqual({ shopper_saw_the_truth: 1 });
  });

  it("4: catches attempts left in progress, owned or not, and pending orders", () => {
    const e = clean();
    e.keys.push({
      key: "33333333-3333-4333-8333-333333333333",
      subjectId: CUSTOMER,
      status: "in_progress",
      lockToken: null,
      responseStatus: null,
    });
    e.orders.push({
      id: "o-c",
      customerId: CUSTOMER,
      status: "pending",
      amountCents: 2500,
      paymentIntentId: null,
      attemptKey: "33333333-3333-4333-8333-333333333333",
    });
    expect(only(e)).toEqual({ nothing_left_in_progress: 2 });
  });

  it("5: catches webhook events never stored or processed twice, and says when it cannot judge", () => {
    const e = clean();
    e.events!.push({ id: "evt_2", type: "payment_intent.succeeded" }, { id: "evt_3", type: "charge.refunded" });
    e.inbox!.push({ eventId: "evt_3", processedCount: 2, processed: true });
    expect(only(e)).toEqual({ webhook_events_once: 2 });
    expect(check({ ...clean(), inbox: null }).notApplicable).toHaveProperty("webhook_events_once");
  });

  it("6: catches an order paid without a charge", () => {
    const e = clean();
    e.orders.push({
      id: "o-x",
      customerId: CUSTOMER,
      status: "paid",
      amountCents: 900,
      paymentIntentId: null,
      attemptKey: null,
    });
    expect(only(e)).toEqual({ no_paid_order_without_charge: 1 });
  });

  it("7: catches two live payments of one checkout, made by two attempts (a second tab)", () => {
    const C = "33333333-3333-4333-8333-333333333333";
    const e = clean();
    for (const order of e.orders) order.checkoutId = "checkout-1";
    expect(check(e).violations).toEqual([]);
    e.attempts.push(attempt(C, [post(202, { status: "processing", orderId: "o-c" })]));
    e.intents.push(intent("pi_c", C, "processing"));
    e.orders.push({
      id: "o-c",
      customerId: CUSTOMER,
      status: "pending",
      amountCents: 2500,
      paymentIntentId: "pi_c",
      attemptKey: C,
      checkoutId: "checkout-1",
    });
    e.keys.push({ key: C, subjectId: CUSTOMER, status: "completed", lockToken: null, responseStatus: 202 });
    expect(only(e)).toEqual({ one_payment_per_checkout: 1, nothing_left_in_progress: 1 });
    expect(check(e).violations.find((v) => v.invariant === "one_payment_per_checkout")).toMatchObject({
      subject: "checkout-1",
      evidence: expect.stringMatching(/pi_a .*pi_c/s),
    });
  });

  it("7: a declined attempt and a paid one of the same checkout are one payment", () => {
    const e = clean();
    for (const order of e.orders) order.checkoutId = "checkout-1";
    expect(only(e)).toEqual({});
    expect(check(e).notApplicable.one_payment_per_checkout).toBeUndefined();
  });

  it("7: is not judged where the app's orders name no checkout", () => {
    expect(check(clean()).notApplicable.one_payment_per_checkout).toMatch(/no checkout/);
  });

  it("reports refunds beyond the charge, operator refunds that stand beside the charge aside", () => {
    const e = clean();
    const refund = (id: string, amount: number, key: string) => ({
      id,
      payment_intent: "pi_a",
      amount,
      status: "succeeded",
      reason: null,
      metadata: { attempt_key: key, reason: "damaged" },
    });
    e.refunds = [refund("re_1", 2000, "k1")];
    expect(only(e)).toEqual({});
    e.refunds.push(refund("re_2", 1000, "k2"));
    expect(only(e)).toEqual({ refunds_within_charge: 1 });
    expect(check(e).violations[0]).toMatchObject({ subject: "pi_a", evidence: expect.stringContaining("3000") });
  });

  it("reports an operator refund attempt that made two Stripe refunds, even within the charge", () => {
    const e = clean();
    const refund = (id: string) => ({
      id,
      payment_intent: "pi_a",
      amount: 500,
      status: "succeeded",
      reason: null,
      metadata: { attempt_key: "k1" },
    });
    e.refunds = [refund("re_1"), refund("re_2")];
    expect(only(e)).toEqual({ one_refund_per_refund_attempt: 1 });
    expect(check(e).violations[0]!.subject).toBe("k1");
  });
});
