import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { TestDb } from "../../tests/helpers/db";
import { createOwnDatabase, type OwnDatabase } from "../../tests/helpers/own-database";
import { waitFor } from "../../tests/helpers/shopper";
import type { PrismaClient } from "../generated/prisma/client";
import { createPrismaClient, engineDatabase } from "../db";
import { IdempotencyEngine, type IdempotencyOptions, type Ownership, fingerprint } from "@checkout/idempotency";
import { drivePayment } from "../payments/drive";
import { createStripeClient } from "../payments/stripe-client";
import { checkout, type CheckoutDeps } from "./checkout";
import { attemptId } from "./attempt-id";
import { attemptMetadata, isAttemptIntentOf } from "./intent-ownership";
import { createAttemptOrder, type PendingOrder } from "./orders";
import { reconcileAbandoned } from "./reconcile";
import { CHECKOUT_ENDPOINT, type CheckoutRequest } from "./request";
import { TEST_IDENTITY } from "@/tests/helpers/identity";

/**
 * The reconciler against a real database and the emulator through the real
 * SDK: attempts whose shopper never came back end paid or declined, charged
 * exactly once. The shopper's absence is the attempts' rows aged past the
 * in-progress TTL (by the database's clock, the one the reconciler judges
 * by), so the TTL is long: nothing is due before a test ages it. A
 * database of its own: the reconciler takes over every abandoned attempt it
 * finds, and must not finish other test files' against this emulator.
 */
const TTL_MS = 30_000;
let database: OwnDatabase;
let db: TestDb;
let prisma: PrismaClient;
let emulator: StripeEmulator;
let deps: CheckoutDeps;

const body = {
  items: [{ sku: "mug-enamel", quantity: 2 }],
  paymentMethod: "pm_card_visa",
} satisfies CheckoutRequest;
const nothing = { paid: 0, declined: 0, failed: 0, waiting: 0, unknown: 0, abandoned: 0, skipped: 0 };

/** The checkout's deps with an engine of other options than the file's (a shorter deadline, a longer backoff). */
function depsWith(options: Partial<IdempotencyOptions>): CheckoutDeps {
  return {
    ...deps,
    idempotency: new IdempotencyEngine(engineDatabase(prisma), {
      inProgressTtlMs: TTL_MS,
      retentionHours: 24,
      attemptDeadlineMs: 1_800_000,
      ...options,
    }),
  };
}

/** The emulator's controls (faults, counters, reset), through its client. */
const controls = () => new EmulatorClient(emulator.url);

async function ledgerFor(customerId: string) {
  const list = await deps.stripe.paymentIntents.list({ limit: 100 });
  return list.data.filter((pi) => pi.metadata.customerId === customerId);
}

async function newCustomer() {
  return (await prisma.customer.create({ data: {}, select: { id: true } })).id;
}

/**
 * Ages the customer's `attempts` unfinished attempts by `ms`, as if the
 * shopper had stayed away that long, and checks each is then due for the
 * reconciler: no claim younger than the TTL, and its next try (or, with
 * none set, a TTL after it began) has come.
 */
async function stayAway(customerId: string, ms: number, attempts = 1) {
  const aged = await db.ageAttemptsOf(customerId, ms);
  expect(aged).toHaveLength(attempts);
  for (const attempt of aged) {
    if (attempt.lock_age_ms !== null) expect(attempt.lock_age_ms).toBeGreaterThan(TTL_MS);
    expect(attempt.next_attempt_in_ms ?? TTL_MS - attempt.age_ms).toBeLessThanOrEqual(0);
  }
}

beforeAll(async () => {
  database = await createOwnDatabase("reconciler");
  db = new TestDb(database.url);
  prisma = createPrismaClient(database.url);
  emulator = await startStripeEmulator({ port: 0 });
  deps = {
    prisma,
    stripe: createStripeClient({
      secretKey: "sk_test_reconcile",
      apiBase: emulator.url,
      timeoutMs: 5_000,
      maxNetworkRetries: 0,
    }),
    idempotency: new IdempotencyEngine(engineDatabase(prisma), {
      inProgressTtlMs: TTL_MS,
      retentionHours: 24,
      attemptDeadlineMs: 1_800_000,
    }),
    appOrigin: "http://localhost:3000",
    actionTimeoutMs: 60_000,
    identity: TEST_IDENTITY,
    log: process.env.DEBUG_RECONCILE ? (e, f) => console.log(e, JSON.stringify(f)) : undefined,
  };
});
afterAll(async () => {
  await emulator.close();
  await prisma.$disconnect();
  await db.close();
  await database.drop();
});
beforeEach(() => controls().reset());

describe("the reconciler", () => {
  it("finishes an attempt whose owner died after the card was charged, without charging again", async () => {
    const customerId = await newCustomer();
    // What a server does up to the charge, then it dies before recording anything:
    // its own payment code runs to the charge; the write of the PaymentIntent's
    // id is lost with the crash, and nothing is recorded after.
    const { owner, order, charged } = await chargedThenDied(customerId);
    const intent = { id: charged.paymentIntentId };
    expect((await controls().snapshot()).stats.charges).toBe(1);

    await stayAway(customerId, TTL_MS + 100);
    const counts = await reconcileAbandoned(deps);
    expect(counts).toEqual({ ...nothing, paid: 1 });

    expect(
      await prisma.order.findUnique({ where: { id: order.id }, select: { status: true, paymentIntentId: true } }),
    ).toEqual({ status: "paid", paymentIntentId: intent.id });
    const record = await prisma.idempotencyKey.findUniqueOrThrow({ where: { id: owner.recordId } });
    expect(record).toMatchObject({ status: "completed", responseStatus: 201, attempts: 2 });
    expect((await ledgerFor(customerId)).map((pi) => pi.status)).toEqual(["succeeded"]);
    expect((await controls().snapshot()).stats.charges).toBe(1);
  });

  it("charges once an attempt whose first charge never reached the provider", async () => {
    const customerId = await newCustomer();
    const key = randomUUID();
    await controls().faults({ failNext: { status: 503, times: 1 } });
    const first = await checkout(deps, { customerId, key, body });
    expect(first).toEqual({ kind: "unavailable", retryAfterSeconds: 2 });
    expect((await controls().snapshot()).stats.failedInjected).toBe(1);
    expect(await ledgerFor(customerId)).toHaveLength(0);

    await stayAway(customerId, TTL_MS + 100); // the shopper never retries
    expect(await reconcileAbandoned(deps)).toEqual({ ...nothing, paid: 1 });
    const ledger = await ledgerFor(customerId);
    expect(ledger.map((pi) => pi.status)).toEqual(["succeeded"]);
    const orders = await prisma.order.findMany({
      where: { customerId },
      select: { status: true, paymentIntentId: true },
    });
    expect(orders).toEqual([{ status: "paid", paymentIntentId: ledger[0]!.id }]);
    // The shopper comes back later: the stored confirmation, no new charge.
    const later = await checkout(deps, { customerId, key, body });
    expect(later).toMatchObject({ kind: "response", replayed: true, response: { statusCode: 201 } });
    expect(await ledgerFor(customerId)).toHaveLength(1);
  });

  it("finishes an attempt whose charge timed out at the client but landed at the provider", async () => {
    const customerId = await newCustomer();
    await controls().faults({ latencyMs: 600 }); // longer than this client's 250 ms timeout
    const impatient = {
      ...deps,
      stripe: createStripeClient({
        secretKey: "sk_test_reconcile",
        apiBase: emulator.url,
        timeoutMs: 250,
        maxNetworkRetries: 0,
      }),
    };
    const first = await checkout(impatient, { customerId, key: randomUUID(), body });
    expect(first.kind).toBe("unavailable");
    await controls().faults({ latencyMs: 0 });
    // The provider finishes creating the intent after its caller gave up.
    await waitFor("the charge to land at the provider", async () => (await controls().stats()).charges === 1);
    await stayAway(customerId, TTL_MS + 100);
    expect(await reconcileAbandoned(deps)).toEqual({ ...nothing, paid: 1 });
    const ledger = await ledgerFor(customerId);
    expect(ledger.map((pi) => pi.status)).toEqual(["succeeded"]);
  });

  it("records a decline for an abandoned attempt with a declined card", async () => {
    const customerId = await newCustomer();
    await controls().faults({ failNext: { status: 500, times: 1 } });
    const declined = { ...body, paymentMethod: "pm_card_chargeDeclinedInsufficientFunds" };
    const key = randomUUID();
    expect((await checkout(deps, { customerId, key, body: declined })).kind).toBe("unavailable");
    await stayAway(customerId, TTL_MS + 100);
    expect(await reconcileAbandoned(deps)).toEqual({ ...nothing, declined: 1 });
    const replay = await checkout(deps, { customerId, key, body: declined });
    expect(replay).toMatchObject({ kind: "response", replayed: true, response: { statusCode: 402 } });
    if (replay.kind !== "response") throw new Error("expected a response");
    expect(JSON.parse(replay.response.body)).toMatchObject({ declineCode: "insufficient_funds" });
  });

  it("forgets a claim whose owner died before creating the order, so a retry starts afresh", async () => {
    const customerId = await newCustomer();
    const key = randomUUID();
    await deps.idempotency.claim({ subjectId: customerId, endpoint: CHECKOUT_ENDPOINT, key }, fingerprint(body));
    await stayAway(customerId, TTL_MS + 100);
    expect(await reconcileAbandoned(deps)).toEqual({ ...nothing, abandoned: 1 });
    expect(await prisma.idempotencyKey.count({ where: { subjectId: customerId } })).toBe(0);
    expect((await checkout(deps, { customerId, key, body })).kind).toBe("response");
    expect(await ledgerFor(customerId)).toHaveLength(1);
  });

  it("lets several reconcilers run at once, each attempt finished once", async () => {
    const customerId = await newCustomer();
    await controls().faults({ failNext: { status: 503, times: 5 } });
    for (let i = 0; i < 5; i++) await checkout(deps, { customerId, key: randomUUID(), body });
    expect((await controls().snapshot()).stats.failedInjected).toBe(5);
    await stayAway(customerId, TTL_MS + 100, 5);
    const runs = await Promise.all([reconcileAbandoned(deps), reconcileAbandoned(deps), reconcileAbandoned(deps)]);
    expect(runs.reduce((n, r) => n + r.unknown, 0)).toBe(0);
    expect(runs.reduce((n, r) => n + r.paid, 0)).toBe(5); // each attempt finished by exactly one of them
    const ledger = await ledgerFor(customerId);
    expect(ledger).toHaveLength(5);
    expect(new Set(ledger.map((pi) => pi.metadata.idempotencyKey)).size).toBe(5);
    expect(await prisma.order.count({ where: { customerId, status: "paid" } })).toBe(5);
  });

  it("settles a crashed-after-charge attempt within a few ticks although 100 older attempts stay unknown on every try", async () => {
    const customerId = await newCustomer();
    // 100 poisoned attempts first: each recorded a PaymentIntent the provider
    // does not know, so every reading of it fails and its outcome stays unknown.
    for (let i = 0; i < 100; i++) {
      const { order } = await ownedOrder(customerId);
      expect(await recordIntent(order.id, `pi_poisoned_${i}_${randomUUID().slice(0, 8)}`)).toBe(true);
    }
    // Then one that really charged the card before its server died.
    const { order } = await chargedThenDied(customerId);
    await stayAway(customerId, TTL_MS + 100, 101); // all of them alike: the poisoned ones stay the oldest

    // A backoff no tick outlasts on a loaded machine (100 failed readings can take longer than the
    // default 10 s), so a poisoned attempt is due again neither in the next tick nor in later tests.
    const patient = depsWith({ reconcileBackoffBaseMs: 3_600_000 });
    const ticks: Array<Record<string, number>> = [];
    for (
      let tick = 0;
      tick < 3 && (await prisma.order.findUniqueOrThrow({ where: { id: order.id } })).status !== "paid";
      tick++
    ) {
      ticks.push(await reconcileAbandoned(patient));
    }
    expect(ticks[0]).toEqual({ ...nothing, unknown: 100 }); // the default batch: the 100 oldest, all poisoned
    expect(ticks[1]).toEqual({ ...nothing, paid: 1 }); // each backed off on its own: the charged one is next
    expect(await prisma.order.findUniqueOrThrow({ where: { id: order.id }, select: { status: true } })).toEqual({
      status: "paid",
    });
    expect((await controls().snapshot()).stats.charges).toBe(1);
  });

  it("settles an attempt for good past its deadline: a recorded intent that never succeeded is cancelled, the failure stored", async () => {
    const short = depsWith({ attemptDeadlineMs: TTL_MS + 200 });
    const customerId = await newCustomer();
    const { owner, order, key } = await ownedOrder(customerId);
    // Created at the provider, never confirmed: an earlier version of the shop
    // created and confirmed in two calls, and its owner died in between.
    const created = await deps.stripe.paymentIntents.create(
      {
        amount: order.amountCents,
        currency: order.currency,
        payment_method: "pm_card_visa",
        metadata: { orderId: order.id, customerId, idempotencyKey: key },
      },
      { idempotencyKey: `${owner.recordId}:create` },
    );
    expect(await recordIntent(order.id, created.id)).toBe(true);
    await stayAway(customerId, TTL_MS + 300); // past the deadline too

    expect(await reconcileAbandoned(short)).toEqual({ ...nothing, failed: 1 });
    expect((await deps.stripe.paymentIntents.retrieve(created.id)).status).toBe("canceled");
    const replay = await checkout(short, { customerId, key, body });
    if (replay.kind !== "response") throw new Error(`expected a replay, got ${replay.kind}`);
    expect(replay).toMatchObject({ replayed: true, response: { statusCode: 402 } });
    expect(JSON.parse(replay.response.body)).toMatchObject({
      error: "payment_failed",
      code: "attempt_expired",
      orderId: order.id,
    });
    expect((await controls().snapshot()).stats.charges).toBe(0);
    expect(await prisma.order.findUniqueOrThrow({ where: { id: order.id }, select: { status: true } })).toEqual({
      status: "failed",
    });
  });

  it("past its deadline restores from Stripe an order the shop lost after its charge, and keeps the success", async () => {
    const short = depsWith({ attemptDeadlineMs: TTL_MS + 200 });
    const customerId = await newCustomer();
    const { order, key, charged } = await chargedThenDied(customerId);
    // A failover to a standby that never received the order's commit: the claim survived, the order did not.
    await prisma.$executeRaw`delete from order_lines where order_id = ${order.id}::uuid`;
    expect(await prisma.$executeRaw`delete from orders where id = ${order.id}::uuid`).toBe(1);
    await stayAway(customerId, TTL_MS + 300); // past the deadline too

    expect(await reconcileAbandoned(short)).toEqual({ ...nothing, paid: 1 });
    expect(await orderState(order.id)).toEqual({ status: "paid", paymentIntentId: charged.paymentIntentId });
    const replay = await checkout(short, { customerId, key, body });
    if (replay.kind !== "response") throw new Error(`expected a replay, got ${replay.kind}`);
    expect(replay).toMatchObject({ replayed: true, response: { statusCode: 201 } });
    expect(await deps.stripe.refunds.list({ payment_intent: charged.paymentIntentId })).toMatchObject({ data: [] });
    expect((await controls().snapshot()).stats.charges).toBe(1);
  });

  const searchFaults = [
    ["search instant", {}],
    ["search 10 minutes behind", { searchLagMs: 600_000 }],
    ["an account without search", { searchUnavailable: true }],
  ] as const;
  it.each(searchFaults)(
    "past its deadline finds by listing an intent whose id was never recorded, and keeps its success (%s)",
    async (_, fault) => {
      const short = depsWith({ attemptDeadlineMs: TTL_MS + 200 });
      const customerId = await newCustomer();
      // Charged, and the server died before writing the intent's id.
      const { order, charged } = await chargedThenDied(customerId);
      await controls().faults(fault);
      // The fault is in force: search does not show the intent (or is refused).
      const searched = await deps.stripe.paymentIntents
        .search({ query: `metadata['orderId']:'${order.id}'` })
        .then((found) => found.data.map((pi) => pi.id))
        .catch((err: { statusCode?: number }) => err.statusCode);
      expect(searched).toEqual(
        "searchUnavailable" in fault ? 400 : "searchLagMs" in fault ? [] : [charged.paymentIntentId],
      );
      await stayAway(customerId, TTL_MS + 300); // past the deadline too

      const searches = (await controls().stats()).searches;
      expect(await reconcileAbandoned(short)).toEqual({ ...nothing, paid: 1 });
      expect(await orderState(order.id)).toEqual({ status: "paid", paymentIntentId: charged.paymentIntentId });
      expect((await controls().stats()).searches).toBe(searches); // found by the list: search never asked
      expect((await controls().snapshot()).stats.charges).toBe(1);
    },
  );
});

/** What a server does up to its first provider call: claim, then price the cart into the attempt's order. */
async function ownedOrder(customerId: string) {
  const key = randomUUID();
  const scope = { subjectId: customerId, endpoint: CHECKOUT_ENDPOINT, key };
  const claim = await deps.idempotency.claim(scope, fingerprint(body));
  if (claim.kind !== "claimed") throw new Error("expected a claim");
  const written = await createAttemptOrder(prisma, {
    owner: claim.owner,
    orderId: attemptId(scope),
    customerId,
    items: body.items,
    checkoutId: null,
    key,
    paymentMethod: body.paymentMethod,
    returnUrl: "http://localhost:3000/checkout/return",
  });
  if (written.kind !== "order") throw new Error("expected the order to be written");
  return { owner: claim.owner, order: written.order, key };
}

/** An owner that charged the card and died before recording anything: the intent's id is lost with it. */
async function chargedThenDied(customerId: string) {
  const { owner, order, key } = await ownedOrder(customerId);
  const charged = await drivePayment(deps.stripe, paymentOf(owner, order, key, customerId), {
    refresh: async () => true,
  });
  if (charged.kind !== "succeeded") throw new Error(`expected a charge, got ${charged.kind}`);
  return { owner, order, key, charged };
}

/** The order's status and the PaymentIntent it records. */
function orderState(orderId: string) {
  return prisma.order.findUniqueOrThrow({ where: { id: orderId }, select: { status: true, paymentIntentId: true } });
}

/** The attempt's PaymentIntent written on its order, as an owner that got that far left it. */
async function recordIntent(orderId: string, paymentIntentId: string): Promise<boolean> {
  const { count } = await prisma.order.updateMany({
    where: { id: orderId, paymentIntentId: null },
    data: { paymentIntentId },
  });
  return count === 1;
}

function paymentOf(owner: Ownership, order: PendingOrder, key: string, customerId: string) {
  return {
    attemptId: order.id,
    attempt: owner.attempt,
    amountCents: order.amountCents,
    currency: order.currency,
    paymentMethod: body.paymentMethod,
    paymentIntentId: null,
    metadata: attemptMetadata(TEST_IDENTITY, {
      orderId: order.id,
      customerId,
      idempotencyKey: key,
      lines: order.lines,
      amountCents: order.amountCents,
      currency: order.currency,
    }),
    returnUrl: "http://localhost:3000/checkout/return",
    since: order.createdAt,
    accepts: isAttemptIntentOf(TEST_IDENTITY, order.id),
  };
}
