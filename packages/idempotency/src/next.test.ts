import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdempotencyEngine } from "./engine";
import { closedGate } from "./gate";
import { idempotentAction, readIdempotentRequest, withIdempotency, type IdempotentContext } from "./next";
import { testDatabase } from "./test-database";

/** The App Router adapter, called as Next calls a route handler: a Request in, a Response out, on a real PostgreSQL. */
let test: Awaited<ReturnType<typeof testDatabase>>;
let engine: IdempotencyEngine;
beforeAll(async () => {
  test = await testDatabase();
  engine = new IdempotencyEngine(test.db, { inProgressTtlMs: 60_000, retentionHours: 24, attemptDeadlineMs: 600_000 });
});
afterAll(() => test.close());

interface Payment {
  amount: number;
}
const parse = (json: unknown) =>
  typeof json === "object" && json !== null && typeof (json as Payment).amount === "number"
    ? ({ ok: true, value: json as Payment } as const)
    : ({ ok: false, response: Response.json({ error: "invalid_request" }, { status: 400 }) } as const);

/** A route whose effect is counted, and which can be held mid-effect. */
function route(options: { required?: boolean; mismatchStatus?: number } = {}) {
  const effects: Array<IdempotentContext<Payment>> = [];
  let hold: Promise<void> | null = null;
  const POST = withIdempotency(
    {
      engine,
      endpoint: "POST /api/payments",
      subject: (request) => request.headers.get("x-user"),
      parse,
      key: { required: options.required ?? true },
      ...(options.mismatchStatus && { policy: { inProgressStatus: 409, mismatchStatus: options.mismatchStatus } }),
    },
    async (context) => {
      effects.push(context);
      if (hold) await hold;
      return {
        status: 201,
        body: { paid: context.body.amount, id: context.attemptId, charge: context.keyFor("charge") },
      };
    },
  );
  return {
    POST,
    effects,
    holdUntil(released: Promise<void>) {
      hold = released;
    },
  };
}
const request = (user: string, key: string | null, body: unknown) =>
  new Request("http://shop.test/api/payments", {
    method: "POST",
    headers: { "content-type": "application/json", "x-user": user, ...(key !== null && { "idempotency-key": key }) },
    body: JSON.stringify(body),
  });

describe("a wrapped route handler", () => {
  it("runs the effect once and replays its answer byte for byte, marked Idempotent-Replayed", async () => {
    const { POST, effects } = route();
    const user = randomUUID();
    const key = randomUUID();
    const first = await POST(request(user, key, { amount: 5 }));
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const firstBytes = await first.text();
    // The key as sent in upper case is the same key.
    const again = await POST(request(user, key.toUpperCase(), { amount: 5 }));
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(firstBytes);
    expect(effects).toHaveLength(1);
    expect(JSON.parse(firstBytes)).toEqual({
      paid: 5,
      id: effects[0]!.attemptId,
      charge: `${effects[0]!.attemptId}:charge`,
    });
  });

  it("answers a duplicate of a running request 409 with Retry-After, and a changed body 422 (or as configured)", async () => {
    const { POST, effects, holdUntil } = route();
    let release!: () => void;
    holdUntil(new Promise<void>((resolve) => (release = resolve)));
    const user = randomUUID();
    const key = randomUUID();
    const running = POST(request(user, key, { amount: 7 }));
    await expect.poll(() => effects.length).toBe(1);
    const duplicate = await POST(request(user, key, { amount: 7 }));
    expect(duplicate.status).toBe(409);
    expect(duplicate.headers.get("retry-after")).toBe("1");
    expect(await duplicate.json()).toMatchObject({ error: "in_progress", retryAfterSeconds: 1 });
    const changed = await POST(request(user, key, { amount: 8 }));
    expect(changed.status).toBe(422);
    expect(await changed.json()).toMatchObject({ error: "idempotency_key_reuse" });
    release();
    expect((await running).status).toBe(201);
    expect(effects).toHaveLength(1);

    const strict = route({ mismatchStatus: 400 });
    const other = randomUUID();
    await strict.POST(request(user, other, { amount: 1 }));
    expect((await strict.POST(request(user, other, { amount: 2 }))).status).toBe(400);
  });

  it("scopes a key by its subject: another user's identical key is another attempt", async () => {
    const { POST, effects } = route();
    const key = randomUUID();
    const mine = await (await POST(request(randomUUID(), key, { amount: 3 }))).json();
    const theirs = await (await POST(request(randomUUID(), key, { amount: 3 }))).json();
    expect(effects).toHaveLength(2);
    expect(mine.id).not.toBe(theirs.id);
  });

  it("refuses a missing or malformed key where it is required, and runs unclaimed where it is optional", async () => {
    const { POST, effects } = route();
    const missing = await POST(request(randomUUID(), null, { amount: 1 }));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: "idempotency_key_missing" });
    const malformed = await POST(request(randomUUID(), "not-a-uuid", { amount: 1 }));
    expect(await malformed.json()).toMatchObject({ error: "idempotency_key_invalid" });
    expect(effects).toHaveLength(0);

    const optional = route({ required: false });
    expect((await optional.POST(request(randomUUID(), null, { amount: 1 }))).status).toBe(201);
    expect(optional.effects).toHaveLength(1);
  });

  it("releases the claim when the handler throws, so the retry runs it again under the same derived keys", async () => {
    let fail = true;
    const ids: string[] = [];
    const POST = withIdempotency(
      { engine, endpoint: "POST /api/flaky", subject: () => "flaky-user", parse },
      async (context) => {
        ids.push(context.keyFor("charge"));
        if (fail) throw new Error("provider unreachable");
        return { status: 201, body: { ok: true } };
      },
    );
    const key = randomUUID();
    await expect(POST(request("flaky-user", key, { amount: 1 }))).rejects.toThrow("provider unreachable");
    fail = false;
    expect((await POST(request("flaky-user", key, { amount: 1 }))).status).toBe(201);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]);
  });

  it("answers a gate's refusal without running the handler or storing anything", async () => {
    let ran = 0;
    const POST = withIdempotency(
      {
        engine,
        endpoint: "POST /api/gated",
        subject: () => "gated-user",
        parse,
        gate: () => closedGate({ rule: "too_many", retryAfterSeconds: 7 }),
      },
      async () => {
        ran++;
        return { status: 201, body: {} };
      },
    );
    const refused = await POST(request("gated-user", randomUUID(), { amount: 1 }));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("7");
    expect(ran).toBe(0);
  });
});

describe("reading a request for a handler that claims by itself", () => {
  it("answers a duplicate of an attempt this process runs in the route's words, without a statement", async () => {
    const statements: string[] = [];
    const counted = new IdempotencyEngine(
      {
        query: (text, values) => {
          statements.push(text);
          return test.db.query(text, values);
        },
      },
      { inProgressTtlMs: 60_000, retentionHours: 24, attemptDeadlineMs: 600_000 },
    );
    const options = {
      engine: counted,
      endpoint: "POST /api/payments",
      subject: (r: Request) => r.headers.get("x-user"),
      parse,
      messages: { inProgress: "Still paying.", mismatch: "Another payment." },
    };
    const user = randomUUID();
    const key = randomUUID();
    const first = await readIdempotentRequest(request(user, key, { amount: 5 }), options);
    if (!first.ok) throw new Error("the first request is refused");
    const owner = await counted.claim(first.scope, first.fingerprint);
    expect(owner.kind).toBe("claimed");
    statements.length = 0;

    const same = await readIdempotentRequest(request(user, key, { amount: 5 }), options);
    expect(same).toMatchObject({ ok: false, inFlight: { decision: "in_progress", scope: first.scope } });
    const duplicate = (same as { response: Response }).response;
    expect(duplicate.status).toBe(409);
    expect(duplicate.headers.get("retry-after")).toBe("1");
    expect(await duplicate.json()).toEqual({ error: "in_progress", message: "Still paying.", retryAfterSeconds: 1 });
    const changed = await readIdempotentRequest(request(user, key, { amount: 6 }), options);
    expect(changed).toMatchObject({ ok: false, inFlight: { decision: "mismatch" } });
    expect(await (changed as { response: Response }).response.json()).toMatchObject({ message: "Another payment." });
    // A body the route refuses is refused first, as without the owner.
    const invalid = await readIdempotentRequest(request(user, key, { amount: "5" }), options);
    expect(invalid).toMatchObject({ ok: false });
    expect((invalid as { inFlight?: unknown }).inFlight).toBeUndefined();
    expect((invalid as { response: Response }).response.status).toBe(400);
    expect(statements).toEqual([]);

    // Once the owner has written its answer, the request goes on to its claim, which replays it.
    if (owner.kind !== "claimed") return;
    await counted.finish(owner.owner, { status: "completed", response: { statusCode: 201, body: "{}", headers: {} } });
    const after = await readIdempotentRequest(request(user, key, { amount: 5 }), options);
    expect(after).toMatchObject({ ok: true, scope: first.scope });
  });
});

describe("a Server Action", () => {
  it("claims the same way, given the subject and the key", async () => {
    let ran = 0;
    const pay = idempotentAction<Payment>({ engine, endpoint: "action payOrder" }, async (context) => {
      ran++;
      return { status: 201, body: { paid: context.body.amount } };
    });
    const key = randomUUID();
    const first = await pay({ subject: "action-user", key, body: { amount: 9 } });
    const second = await pay({ subject: "action-user", key, body: { amount: 9 } });
    expect(await second.text()).toBe(await first.text());
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(ran).toBe(1);
    expect((await pay({ subject: "action-user", key: "nope", body: { amount: 9 } })).status).toBe(400);
  });
});
