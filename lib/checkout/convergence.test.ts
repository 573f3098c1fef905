import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { EmulatorClient, type FaultStats } from "@checkout/stripe-emulator/client";
import { TestDb } from "../../tests/helpers/db";
import { createOwnDatabase, type OwnDatabase } from "../../tests/helpers/own-database";
import { authenticate } from "../../tests/helpers/three-d-secure";
import { createPrismaClient, engineDatabase } from "../db";
import type { PrismaClient } from "../generated/prisma/client";
import { IdempotencyEngine } from "@checkout/idempotency";
import { createStripeClient } from "../payments/stripe-client";
import { returnFromAuthentication } from "./authentication-return";
import { checkout, type CheckoutDeps, type CheckoutResult } from "./checkout";
import { parkedLookAfterMs, reconcileAbandoned } from "./reconcile";
import type { CheckoutRequest } from "./request";
import { TEST_IDENTITY } from "@/tests/helpers/identity";

/**
 * Every attempt ends, and ends right (docs/contract.md, "Convergence"),
 * against the emulator's faults through the real SDK and a real database of
 * its own (the reconciler takes over every abandoned attempt it finds).
 * Time passes for an attempt by ageing its row (by the database's clock, the
 * one the reconciler judges by), so the TTL, the deadline and the action
 * timeout are long: nothing is due before a test ages it.
 */
const TTL_MS = 30_000;
const DEADLINE_MS = 120_000;
const ACTION_TIMEOUT_MS = 60_000;
let database: OwnDatabase;
let db: TestDb;
let prisma: PrismaClient;
let emulator: StripeEmulator;
let deps: CheckoutDeps;

const cart = (paymentMethod: string): CheckoutRequest => ({
  items: [{ sku: "mug-enamel", quantity: 1 }],
  paymentMethod,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nothing = { paid: 0, declined: 0, failed: 0, waiting: 0, unknown: 0, abandoned: 0, skipped: 0 };

/** The emulator's controls (faults, counters, reset), through its client. */
const controls = () => new EmulatorClient(emulator.url);

function depsFor(url: string): CheckoutDeps {
  return {
    prisma,
    stripe: createStripeClient({
      secretKey: "sk_test_convergence",
      apiBase: url,
      timeoutMs: 5_000,
      maxNetworkRetries: 0,
    }),
    idempotency: new IdempotencyEngine(engineDatabase(prisma), {
      inProgressTtlMs: TTL_MS,
      retentionHours: 24,
      attemptDeadlineMs: DEADLINE_MS,
    }),
    appOrigin: "http://shop.test",
    actionTimeoutMs: ACTION_TIMEOUT_MS,
    identity: TEST_IDENTITY,
  };
}

async function newCustomer() {
  return (await prisma.customer.create({ data: {}, select: { id: true } })).id;
}

/** A stored answer's body: a paid order, a failure, or a 202 with the bank's page. */
interface AnswerBody {
  [field: string]: unknown;
  orderId?: string;
  nextAction: { url: string };
}

function bodyOf(result: CheckoutResult | { kind: "not_found" }) {
  if (result.kind !== "response") throw new Error(`expected a response, got ${JSON.stringify(result)}`);
  return {
    status: result.response.statusCode,
    replayed: result.replayed,
    body: JSON.parse(result.response.body) as AnswerBody,
  };
}

beforeAll(async () => {
  database = await createOwnDatabase("convergence");
  db = new TestDb(database.url);
  prisma = createPrismaClient(database.url);
  emulator = await startStripeEmulator({ port: 0 });
  deps = depsFor(emulator.url);
});
afterAll(async () => {
  await emulator.close();
  await prisma.$disconnect();
  await db.close();
  await database.drop();
});
beforeEach(() => controls().reset());

describe("a definitive provider error", () => {
  it("is a stored 402 payment_failed with the provider's code: an unknown payment method is never retried", async () => {
    const customerId = await newCustomer();
    const key = randomUUID();
    const first = bodyOf(await checkout(deps, { customerId, key, body: cart("pm_card_doesNotExist") }));
    expect(first).toMatchObject({
      status: 402,
      replayed: false,
      body: { error: "payment_failed", code: "resource_missing" },
    });
    const requests = (await controls().snapshot()).stats.requests;
    expect(bodyOf(await checkout(deps, { customerId, key, body: cart("pm_card_doesNotExist") }))).toMatchObject({
      status: 402,
      replayed: true,
    });
    expect((await controls().snapshot()).stats.requests).toBe(requests); // the retry never reached the provider
    expect(await prisma.order.findMany({ where: { customerId }, select: { status: true, declineCode: true } })).toEqual(
      [{ status: "failed", declineCode: "resource_missing" }],
    );
  });
});

describe("a create whose 500 the provider stored for its key", () => {
  it("is unknown until the deadline, then a stored failure; nothing is ever charged, even after the provider forgets the key", async () => {
    const customerId = await newCustomer();
    const key = randomUUID();
    await controls().faults({ storeCreate500: 1 });
    expect(await checkout(deps, { customerId, key, body: cart("pm_card_visa") })).toMatchObject({
      kind: "unavailable",
    });
    expect((await controls().snapshot()).stats.storedCreate500).toBe(1);

    // The shopper never comes back: the released attempt is due a TTL later.
    expect((await db.ageAttempt(customerId, key, TTL_MS + 100)).next_attempt_in_ms).toBeLessThanOrEqual(0);
    expect(await reconcileAbandoned(deps)).toEqual({ ...nothing, unknown: 1 }); // the replayed 500: still unknown
    await prisma.idempotencyKey.updateMany({ where: { subjectId: customerId }, data: { nextAttemptAt: new Date(0) } });
    expect((await db.ageAttempt(customerId, key, DEADLINE_MS)).age_ms).toBeGreaterThan(DEADLINE_MS);
    expect(await reconcileAbandoned(deps)).toEqual({ ...nothing, failed: 1 }); // searched by metadata: no intent

    // The provider forgets its keys; the shopper and the reconciler come back.
    await controls().faults({ idempotencyKeyTtlMs: 1 });
    await sleep(50);
    expect(bodyOf(await checkout(deps, { customerId, key, body: cart("pm_card_visa") }))).toMatchObject({
      status: 402,
      replayed: true,
      body: { error: "payment_failed", code: "attempt_expired" },
    });
    expect(await reconcileAbandoned(deps)).toEqual(nothing);
    const stats = (await controls().snapshot()).stats;
    expect(stats.charges).toBe(0);
    expect((await deps.stripe.paymentIntents.list({ limit: 100 })).data).toEqual([]);
  });
});

describe("a create that executes after its caller gave up", () => {
  it("is waited for (its key is in use), then replayed: the retry sends the very same request and nothing more is charged", async () => {
    // Every request from the app to the provider passes through here, to be
    // read; the first create is cut off and executes at the provider later.
    const creates: Array<{ key: string; form: string }> = [];
    const proxy = http.createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        const isCreate = req.method === "POST" && req.url === "/v1/payment_intents";
        if (isCreate) creates.push({ key: String(req.headers["idempotency-key"]), form: body });
        const arm =
          isCreate && creates.length === 1
            ? controls().faults({ lateExecution: { delayMs: 1_500, times: 1 } })
            : Promise.resolve();
        void arm.then(() => {
          const upstream = http.request(
            new URL(req.url ?? "/", emulator.url),
            { method: req.method, headers: req.headers },
            (answer) => {
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              answer.pipe(res);
            },
          );
          upstream.on("error", () => res.destroy());
          upstream.end(body);
        });
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const proxied = depsFor(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
    try {
      const customerId = await newCustomer();
      const key = randomUUID();
      const body = cart("pm_card_chargeDeclined");
      expect(await checkout(proxied, { customerId, key, body })).toMatchObject({ kind: "unavailable" });
      expect((await controls().snapshot()).stats.lateAnswered).toBe(1);
      // The shopper retries at once: the first create still holds its key (409 in use), nothing is found yet.
      expect(await checkout(proxied, { customerId, key, body })).toMatchObject({ kind: "unavailable" });
      await waitForStat("lateExecuted", 1);
      const declined = bodyOf(await checkout(proxied, { customerId, key, body }));
      expect(declined).toMatchObject({ status: 402, replayed: false, body: { error: "card_declined" } });
      // stripe-node resends a request whose connection closed once, under the
      // same key, even with maxNetworkRetries 0 (RequestSender._shouldRetry).
      expect(creates.length).toBeGreaterThanOrEqual(3);
      expect(new Set(creates.map((c) => c.key))).toEqual(new Set([`${declined.body.orderId}:create`]));
      expect(new Set(creates.map((c) => c.form)).size).toBe(1);
      expect((await controls().snapshot()).stats).toMatchObject({ charges: 0, declines: 1, replayed: 1 });
      expect((await deps.stripe.paymentIntents.list({ limit: 100 })).data).toHaveLength(1);
      expect(bodyOf(await checkout(proxied, { customerId, key, body }))).toMatchObject({ status: 402, replayed: true });
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});

describe("3-D Secure", () => {
  it("answers 202 with the redirect, replays the same 202 to duplicates, and the return records the payment once", async () => {
    const customerId = await newCustomer();
    const key = randomUUID();
    const body = cart("pm_card_threeDSecure2Required");
    const first = bodyOf(await checkout(deps, { customerId, key, body }));
    expect(first).toMatchObject({
      status: 202,
      replayed: false,
      body: { status: "requires_action", nextAction: { type: "redirect" } },
    });
    const again = bodyOf(await checkout(deps, { customerId, key, body }));
    expect(again).toEqual({ ...first, replayed: true });
    const intents = (await deps.stripe.paymentIntents.list({ limit: 100 })).data;
    expect(intents).toHaveLength(1);
    expect(intents[0]!.next_action?.redirect_to_url?.return_url).toBe(`http://shop.test/checkout/return?key=${key}`);

    const back = await authenticate(first.body.nextAction.url, "complete");
    expect(back.searchParams.get("redirect_status")).toBe("succeeded");
    const paymentIntentId = back.searchParams.get("payment_intent");
    const paid = bodyOf(await returnFromAuthentication(deps, { customerId, key, paymentIntentId }));
    expect(paid).toMatchObject({ status: 201, replayed: false, body: { status: "paid", paymentIntentId } });
    const twice = bodyOf(await returnFromAuthentication(deps, { customerId, key, paymentIntentId }));
    expect(twice).toEqual({ ...paid, replayed: true });
    expect(bodyOf(await checkout(deps, { customerId, key, body }))).toEqual({ ...paid, replayed: true });
    expect((await controls().snapshot()).stats).toMatchObject({ charges: 1 });
  });

  it("logs no client secret: the redirect URL that carries one stays out of every log line", async () => {
    const lines: string[] = [];
    const logging = {
      ...deps,
      log: (event: string, fields: Record<string, unknown>) => lines.push(JSON.stringify({ event, ...fields })),
    };
    const first = bodyOf(
      await checkout(logging, {
        customerId: await newCustomer(),
        key: randomUUID(),
        body: cart("pm_card_threeDSecure2Required"),
      }),
    );
    expect(first.body.nextAction.url).toMatch(/client_secret=/); // the secret is there to leak
    expect(lines.some((line) => line.includes('"kind":"requires_action"'))).toBe(true);
    expect(lines.filter((line) => /secret/i.test(line))).toEqual([]);
  });

  it("records a failed authentication as 402 authentication_failed; the return never trusts another intent's id", async () => {
    const customerId = await newCustomer();
    const key = randomUUID();
    const first = bodyOf(await checkout(deps, { customerId, key, body: cart("pm_card_threeDSecure2Required") }));
    const back = await authenticate(first.body.nextAction.url, "fail");
    expect(back.searchParams.get("redirect_status")).toBe("failed");

    const other = await deps.stripe.paymentIntents.create({
      amount: 100,
      currency: "usd",
      payment_method: "pm_card_visa",
    });
    expect(await returnFromAuthentication(deps, { customerId, key, paymentIntentId: other.id })).toEqual({
      kind: "not_found",
    });
    expect(
      await returnFromAuthentication(deps, {
        customerId: await newCustomer(),
        key,
        paymentIntentId: back.searchParams.get("payment_intent"),
      }),
    ).toEqual({ kind: "not_found" });

    const failed = bodyOf(
      await returnFromAuthentication(deps, {
        customerId,
        key,
        paymentIntentId: back.searchParams.get("payment_intent"),
      }),
    );
    expect(failed).toMatchObject({
      status: 402,
      body: { error: "authentication_failed", code: "payment_intent_authentication_failure" },
    });
    expect((await controls().snapshot()).stats).toMatchObject({ charges: 0, authenticationsFailed: 1 });
  });

  it("cancels an authentication nobody finished once its action timeout passed, and stores authentication_abandoned", async () => {
    const customerId = await newCustomer();
    const key = randomUUID();
    const body = cart("pm_card_threeDSecure2Required");
    const first = bodyOf(await checkout(deps, { customerId, key, body }));
    expect(await reconcileAbandoned(deps)).toEqual(nothing); // waiting for the shopper, not yet due
    // Nobody authenticates: the parked attempt is due once its action timeout has passed.
    expect((await db.ageAttempt(customerId, key, ACTION_TIMEOUT_MS + 100)).next_attempt_in_ms).toBeLessThanOrEqual(0);
    expect(await reconcileAbandoned(deps)).toEqual({ ...nothing, failed: 1 });
    const intent = (await deps.stripe.paymentIntents.list({ limit: 1 })).data[0]!;
    expect(intent).toMatchObject({ status: "canceled", cancellation_reason: "abandoned" });
    expect(bodyOf(await checkout(deps, { customerId, key, body }))).toMatchObject({
      status: 402,
      replayed: true,
      body: { error: "authentication_abandoned", orderId: first.body.orderId },
    });
    // The shopper finds the tab later and presses Complete: the provider refuses, nothing is charged.
    await authenticate(first.body.nextAction.url, "complete").catch(() => undefined);
    expect((await controls().snapshot()).stats.charges).toBe(0);
  });
});

describe("after the bank, the shop confirms", () => {
  it("an authentication completed and never reported is confirmed by the reconciler once its action timeout passed", async () => {
    const customerId = await newCustomer();
    const key = randomUUID();
    const body = cart("pm_card_threeDSecure2Required");
    const first = bodyOf(await checkout(deps, { customerId, key, body }));
    // The shopper authenticates and closes the tab before the return: the intent waits for the shop.
    await authenticate(first.body.nextAction.url, "complete");
    const waiting = (await deps.stripe.paymentIntents.list({ limit: 1 })).data[0]!;
    expect(waiting).toMatchObject({ status: "requires_confirmation", confirmation_method: "manual" });
    expect((await controls().snapshot()).stats.charges).toBe(0);

    expect((await db.ageAttempt(customerId, key, ACTION_TIMEOUT_MS + 100)).next_attempt_in_ms).toBeLessThanOrEqual(0);
    expect(await reconcileAbandoned(deps)).toEqual({ ...nothing, paid: 1 });
    expect(await deps.stripe.paymentIntents.retrieve(waiting.id)).toMatchObject({ status: "succeeded" });
    expect(bodyOf(await checkout(deps, { customerId, key, body }))).toMatchObject({
      status: 201,
      replayed: true,
      body: { status: "paid", paymentIntentId: waiting.id },
    });
    expect((await controls().snapshot()).stats).toMatchObject({ charges: 1 });
  });

  it("an authentication completed and never reported is confirmed at the reconciler's next look, long before its timeout", async () => {
    const look = parkedLookAfterMs(ACTION_TIMEOUT_MS);
    const looking: CheckoutDeps = {
      ...deps,
      idempotency: new IdempotencyEngine(engineDatabase(prisma), {
        inProgressTtlMs: TTL_MS,
        retentionHours: 24,
        attemptDeadlineMs: DEADLINE_MS,
        parkedLookAfterMs: look,
      }),
    };
    const customerId = await newCustomer();
    const key = randomUUID();
    const body = cart("pm_card_threeDSecure2Required");
    const first = bodyOf(await checkout(looking, { customerId, key, body }));
    expect(first.status).toBe(202);
    expect(await reconcileAbandoned(looking)).toEqual(nothing); // not due before its first look

    // The first look finds the bank still waiting: the attempt waits again, its next look as far off as it has waited.
    expect((await db.ageAttempt(customerId, key, look + 100)).next_attempt_in_ms).toBeLessThanOrEqual(0);
    expect(await reconcileAbandoned(looking)).toEqual({ ...nothing, waiting: 1 });
    const waiting = (await db.record(customerId, key))!;
    expect(waiting).toMatchObject({ status: "in_progress", lock_token: null, response_status: 202 });
    expect(waiting.next_attempt_in_ms).toBeGreaterThan(look / 2);
    expect(await reconcileAbandoned(looking)).toEqual(nothing);

    // The shopper authenticates and closes the tab before the return: the next look confirms it.
    await authenticate(first.body.nextAction.url, "complete");
    const aged = await db.ageAttempt(customerId, key, Math.ceil(waiting.next_attempt_in_ms!) + 100);
    expect(aged.age_ms).toBeLessThan(ACTION_TIMEOUT_MS / 4);
    expect(await reconcileAbandoned(looking)).toEqual({ ...nothing, paid: 1 });
    const intent = (await deps.stripe.paymentIntents.list({ limit: 1 })).data[0]!;
    expect(intent).toMatchObject({ status: "succeeded" });
    expect(bodyOf(await checkout(looking, { customerId, key, body }))).toMatchObject({
      status: 201,
      replayed: true,
      body: { status: "paid", paymentIntentId: intent.id },
    });
    expect((await controls().snapshot()).stats).toMatchObject({ charges: 1 });
  });

  it("a decline after the bank settled by the reconciler cancels the intent and counts toward the brake", async () => {
    const counting: CheckoutDeps = { ...deps, declineWindowSeconds: 3600 };
    const customerId = await newCustomer();
    const key = randomUUID();
    const first = bodyOf(
      await checkout(counting, { customerId, key, body: cart("pm_card_threeDSecureRequiredChargeDeclined") }),
    );
    await authenticate(first.body.nextAction.url, "complete");
    await db.ageAttempt(customerId, key, ACTION_TIMEOUT_MS + 100);
    expect(await reconcileAbandoned(counting)).toEqual({ ...nothing, declined: 1 });
    const intent = (await deps.stripe.paymentIntents.list({ limit: 1 })).data[0]!;
    expect(intent).toMatchObject({ status: "canceled", cancellation_reason: "abandoned" });
    expect((await controls().snapshot()).stats).toMatchObject({ charges: 0, declines: 1 });
    const counted = await prisma.$queryRaw<Array<{ hits: number }>>`
      select hits from admission_counters where rule = 'declines_per_session' and bucket = ${customerId}`;
    expect(counted).toEqual([{ hits: 1 }]);
  });
});

async function waitForStat(name: keyof FaultStats, value: number) {
  for (let i = 0; i < 100; i++) {
    if ((await controls().stat(name)) === value) return;
    await sleep(50);
  }
  throw new Error(`the emulator's ${name} never reached ${value}`);
}
