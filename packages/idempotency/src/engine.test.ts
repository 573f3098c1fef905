import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdempotencyEngine } from "./engine";
import { sql, type Database, type Sql } from "./sql";
import { testDatabase } from "./test-database";
import type { ClaimResult, KeyScope, Ownership } from "./types";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let test: Awaited<ReturnType<typeof testDatabase>>;
let db: Database;
beforeAll(async () => {
  test = await testDatabase();
  db = test.db;
});
afterAll(() => test.close());

const engine = (inProgressTtlMs = 60_000, database: Database = db) =>
  new IdempotencyEngine(database, { inProgressTtlMs, retentionHours: 24, attemptDeadlineMs: 1_800_000 });
/** An engine as another process has it: the same database through another handle, so nothing it runs is known here. */
const elsewhere = (inProgressTtlMs = 60_000) =>
  engine(inProgressTtlMs, { query: (text, values) => db.query(text, values) });
const count = async (subjectId: string) =>
  (
    await db.query<{ n: number }>("select count(*)::int as n from idempotency_keys where subject_id = $1", [subjectId])
  )[0]!.n;
const marks = async (id: string) =>
  (await db.query<{ n: number }>("select count(*)::int as n from marks where id = $1", [id]))[0]!.n;
interface KeyRow {
  lockToken: string | null;
  lockedAt: Date | null;
  expiresAt: Date | null;
  completedAt: Date | null;
  nextAttemptAt: Date | null;
  reconcileTries: number;
}
const rowWhere = async (column: "id" | "subject_id", value: string) => {
  const rows = await db.query<KeyRow>(
    `select lock_token as "lockToken", locked_at as "lockedAt", expires_at as "expiresAt", completed_at as "completedAt",
            next_attempt_at as "nextAttemptAt", reconcile_tries as "reconcileTries"
       from idempotency_keys where ${column} = $1`,
    [value],
  );
  if (!rows[0]) throw new Error(`no record with ${column} ${value}`);
  return rows[0];
};
const scope = (over: Partial<KeyScope> = {}): KeyScope => ({
  subjectId: randomUUID(),
  endpoint: "POST /api/test",
  key: randomUUID(),
  ...over,
});
const HASH = "a".repeat(64);
const ok = { statusCode: 201, body: JSON.stringify({ orderId: "o1" }), headers: { Location: "/orders/o1" } };
const owner = (r: ClaimResult): Ownership => {
  if (r.kind !== "claimed") throw new Error(`expected claimed, got ${r.kind}`);
  return r.owner;
};
/** An effect that leaves a trace: a customer row with this id, written only with the outcome. */
const marker = (id: string) => (finishedId: Sql) =>
  sql`insert into marks (id) select ${id}::uuid where ${finishedId} is not null`;

describe("claiming a key", () => {
  it("claims a fresh key, and answers a duplicate with in_progress without waiting", async () => {
    const e = engine();
    const s = scope();
    const first = await e.claim(s, HASH);
    expect(first).toMatchObject({ kind: "claimed", owner: { attempt: 1, retaken: false } });
    expect(await e.claim(s, HASH)).toEqual({ kind: "in_progress", retryAfterSeconds: 1 });
  });

  it("refuses the same key with a different body, even while in progress", async () => {
    const e = engine();
    const s = scope();
    await e.claim(s, HASH);
    expect(await e.claim(s, "b".repeat(64))).toEqual({ kind: "mismatch" });
  });

  it.each([1, 2, 3, 4, 5])("gives 100 concurrent claims of one key exactly one winner (run %i)", async () => {
    const e = engine();
    const s = scope();
    const results = await Promise.all(Array.from({ length: 100 }, () => e.claim(s, HASH)));
    const kinds = results.map((r) => r.kind);
    expect(kinds.filter((k) => k === "claimed")).toHaveLength(1);
    expect(kinds.every((k) => k === "claimed" || k === "in_progress" || k === "replay")).toBe(true);
    const rows = await count(s.subjectId);
    expect(rows).toBe(1);
  });

  it("scopes keys by subject and by endpoint", async () => {
    const e = engine();
    const s = scope();
    expect((await e.claim(s, HASH)).kind).toBe("claimed");
    expect((await e.claim({ ...s, subjectId: randomUUID() }, HASH)).kind).toBe("claimed");
    expect((await e.claim({ ...s, endpoint: "POST /api/other" }, HASH)).kind).toBe("claimed");
  });
});

describe("finishing a claim", () => {
  it("replays a completed outcome verbatim, and a failed one", async () => {
    const e = engine();
    const s = scope();
    expect(await e.finish(owner(await e.claim(s, HASH)), { status: "completed", response: ok })).toBe(true);
    expect(await e.claim(s, HASH)).toEqual({ kind: "replay", status: "completed", response: ok });

    const declined = { statusCode: 402, body: JSON.stringify({ error: "card_declined" }), headers: {} };
    const s2 = scope();
    await e.finish(owner(await e.claim(s2, HASH)), { status: "failed", response: declined });
    expect(await e.claim(s2, HASH)).toEqual({ kind: "replay", status: "failed", response: declined });
    const row = await rowWhere("subject_id", s2.subjectId);
    expect(row.lockToken).toBeNull();
    expect(row.expiresAt!.getTime() - row.completedAt!.getTime()).toBe(24 * 3600_000);
  });

  it("writes the caller's effect with the outcome, and neither when the effect fails", async () => {
    const e = engine();
    const s = scope();
    const o = owner(await e.claim(s, HASH));
    // A mark without an id: the not-null constraint refuses it.
    const failing = (finishedId: Sql) => sql`insert into marks (id) select null::uuid where ${finishedId} is not null`;
    await expect(e.finish(o, { status: "completed", response: ok }, failing)).rejects.toThrow(/null value/);
    expect(await e.claim(s, HASH)).toMatchObject({ kind: "in_progress" });

    const customerId = randomUUID();
    expect(await e.finish(o, { status: "completed", response: ok }, marker(customerId))).toBe(true);
    expect(await marks(customerId)).toBe(1);
    expect(await e.claim(s, HASH)).toEqual({ kind: "replay", status: "completed", response: ok });
  });

  it("lets the next request retake a released claim at once", async () => {
    const e = engine();
    const s = scope();
    const first = owner(await e.claim(s, HASH));
    expect(await e.release(first)).toBe(true);
    expect(await e.claim(s, HASH)).toMatchObject({ kind: "claimed", owner: { attempt: 2, retaken: true } });
  });
});

describe("stale owners", () => {
  it("retakes a claim whose lock outlived the TTL, and fences the old owner out", async () => {
    const e = engine(200);
    const s = scope();
    const stale = owner(await e.claim(s, HASH));
    expect((await e.claim(s, HASH)).kind).toBe("in_progress");
    await sleep(300);
    const fresh = owner(await e.claim(s, HASH));
    expect(fresh).toMatchObject({ attempt: 2, retaken: true });

    // The presumed-dead owner wakes up late: none of its writes land.
    const customerId = randomUUID();
    expect(await e.finish(stale, { status: "failed", response: ok }, marker(customerId))).toBe(false);
    expect(await marks(customerId)).toBe(0);
    expect(await e.release(stale)).toBe(false);
    expect(await e.refresh(stale)).toBe(false);

    expect(await e.refresh(fresh)).toBe(true);
    expect(await e.finish(fresh, { status: "completed", response: ok })).toBe(true);
    expect(await e.claim(s, HASH)).toEqual({ kind: "replay", status: "completed", response: ok });
  });

  it("gives 20 concurrent retakes of one stale claim exactly one winner", async () => {
    // A TTL far above the time 20 claims take on a loaded machine, and the claim aged past it:
    // the winner's own claim stays young while the others run.
    const e = engine(60_000);
    const s = scope();
    // The owner was another process's: its lock ages only in the database.
    await elsewhere(60_000).claim(s, HASH);
    const aged = await db.query(
      `update idempotency_keys set locked_at = locked_at - interval '61 seconds'
        where subject_id = $1 and endpoint = $2 and key = $3::uuid returning id`,
      [s.subjectId, s.endpoint, s.key],
    );
    expect(aged).toHaveLength(1);
    const results = await Promise.all(Array.from({ length: 20 }, () => e.claim(s, HASH)));
    expect(results.filter((r) => r.kind === "claimed")).toHaveLength(1);
    expect(results.filter((r) => r.kind === "in_progress")).toHaveLength(19);
  });
});

describe("finding an attempt", () => {
  it("shows its state to its subject only", async () => {
    const e = engine();
    const s = scope();
    expect(await e.find(s)).toBeNull();
    const o = owner(await e.claim(s, HASH));
    expect(await e.find(s)).toEqual({ recordId: o.recordId, status: "in_progress", owned: true });
    await e.finish(o, { status: "completed", response: ok });
    expect(await e.find(s)).toEqual({ recordId: o.recordId, status: "completed", owned: false, response: ok });
    expect(await e.find({ ...s, subjectId: randomUUID() })).toBeNull();
  });
});

describe("a retake that loses the race to a reconciler", () => {
  it("only reads after its failed compare-and-set: no orphan record is left blocking the key", async () => {
    const e = engine(100);
    const s = scope();
    await e.claim(s, HASH);
    await sleep(200);
    // The exact interleaving: between the retaker's read of the stale record
    // and its compare-and-set, a reconciler takes the record over and, finding
    // no order, deletes it. The retaker's compare-and-set then fails.
    const reconciler = engine(100);
    const compareAndSet = Reflect.get(e, "compareAndSetOwner") as (...args: unknown[]) => Promise<Ownership | null>;
    let interleaved = false;
    Reflect.set(e, "compareAndSetOwner", async (...args: unknown[]) => {
      const [abandoned] = await reconciler
        .findAbandoned(s.endpoint, 1000)
        .then((all) => all.filter((r) => r.subjectId === s.subjectId));
      const taken = await reconciler.takeOver(abandoned!);
      interleaved = taken !== null && (await reconciler.abandon(taken));
      return compareAndSet.apply(e, args);
    });
    expect(await e.claim(s, HASH)).toEqual({ kind: "in_progress", retryAfterSeconds: 1 });
    expect(interleaved).toBe(true);
    expect(await count(s.subjectId)).toBe(0);
    // The shopper's next retry is a fresh claim at once, not a 409 for a whole TTL.
    expect(await engine(100).claim(s, HASH)).toMatchObject({ kind: "claimed", owner: { attempt: 1 } });
  });
});

describe("an attempt waiting for the shopper (3-D Secure)", () => {
  const waiting = { statusCode: 202, body: JSON.stringify({ status: "requires_action" }), headers: {} };

  it("replays its 202 to duplicates while nobody owns it, and can be taken over to be settled", async () => {
    const e = engine();
    const s = scope();
    const first = owner(await e.claim(s, HASH));
    expect(await e.park(first, waiting, 60_000)).toBe(true);
    expect(await e.claim(s, HASH)).toEqual({ kind: "replay", status: "in_progress", response: waiting });
    expect(await e.find(s)).toEqual({
      recordId: first.recordId,
      status: "in_progress",
      owned: false,
      response: waiting,
    });

    const returning = await e.takeOver({ recordId: first.recordId });
    expect(returning).toMatchObject({ attempt: 2, retaken: true, pastDeadline: false });
    expect(await e.claim(s, HASH)).toMatchObject({ kind: "in_progress" }); // someone is settling it now
    expect(await e.takeOver({ recordId: first.recordId })).toBeNull(); // and only one
    expect(await e.finish(returning!, { status: "completed", response: ok })).toBe(true);
    expect(await e.claim(s, HASH)).toEqual({ kind: "replay", status: "completed", response: ok });
  });

  it("is due for the reconciler only once its action timeout has passed, however often it waits again", async () => {
    const e = engine(50);
    const s = scope();
    const first = owner(await e.claim(s, HASH));
    await e.park(first, waiting, 600);
    await sleep(300);
    const again = await e.takeOver({ recordId: first.recordId });
    await e.park(again!, waiting, 600); // a return before authenticating: the first wait's clock keeps running
    const due = async () => (await e.findAbandoned(s.endpoint, 1000)).filter((r) => r.subjectId === s.subjectId);
    expect(await due()).toEqual([]);
    await sleep(400);
    expect(await due()).toEqual([expect.objectContaining({ recordId: first.recordId, parked: true })]);
  });

  it("with looks, is due at its first look, then after as long again as it has waited, never after its timeout", async () => {
    const e = new IdempotencyEngine(db, {
      inProgressTtlMs: 50,
      retentionHours: 24,
      attemptDeadlineMs: 1_800_000,
      parkedLookAfterMs: 300,
    });
    const s = scope();
    const due = async () => (await e.findAbandoned(s.endpoint, 1000)).filter((r) => r.subjectId === s.subjectId);
    const first = owner(await e.claim(s, HASH));
    await e.park(first, waiting, 3_000);
    expect(await due()).toEqual([]);
    await sleep(350);
    const [look] = await due();
    expect(look).toMatchObject({ recordId: first.recordId, parked: true });
    expect(look!.ageMs).toBeGreaterThanOrEqual(300);
    // Still waiting: parked again, due once it has waited twice as long as at the look, then at its timeout.
    await e.park((await e.takeOver(look!))!, waiting, 3_000);
    expect(await due()).toEqual([]);
    await sleep(look!.ageMs + 50);
    const [second] = await due();
    expect(second!.ageMs).toBeGreaterThanOrEqual(2 * look!.ageMs);
    await e.park((await e.takeOver(second!))!, waiting, 3_000);
    expect(await due()).toEqual([]);
    await sleep(3_050 - second!.ageMs);
    expect((await due())[0]!.ageMs).toBeGreaterThanOrEqual(3_000);
  });
});

describe("the owner's lock", () => {
  it("is renewed by refresh, so a duplicate after the original TTL is still answered in_progress", async () => {
    const e = engine(400);
    const s = scope();
    const o = owner(await e.claim(s, HASH));
    await sleep(300);
    expect(await e.refresh(o)).toBe(true);
    await sleep(250); // 550 ms after the claim, 250 ms after the renewal
    expect(await e.claim(s, HASH)).toMatchObject({ kind: "in_progress" });
  });
});

describe("reconciliation order", () => {
  it("gives each record its own next try: one that stays unknown backs off and the others come first", async () => {
    const e = engine(50);
    const endpoint = `POST /api/fair-${randomUUID()}`;
    const poisoned = owner(await e.claim(scope({ endpoint }), HASH));
    await sleep(20);
    const healthy = owner(await e.claim(scope({ endpoint }), HASH));
    await sleep(100);
    expect((await e.findAbandoned(endpoint, 1)).map((r) => r.recordId)).toEqual([poisoned.recordId]); // oldest first
    const taken = await e.takeOver({ recordId: poisoned.recordId, lockToken: poisoned.lockToken });
    expect(await e.release(taken!, "backoff")).toBe(true);
    expect((await e.findAbandoned(endpoint, 1)).map((r) => r.recordId)).toEqual([healthy.recordId]);
    const row = await rowWhere("id", poisoned.recordId);
    expect(row.reconcileTries).toBe(1);
    expect(row.nextAttemptAt!.getTime() - Date.now()).toBeGreaterThan(5_000);
  });
});

describe("lock renewal with a threshold", () => {
  const lockedAt = async (o: Ownership) => (await rowWhere("id", o.recordId)).lockedAt!.getTime();
  const withThreshold = (renewAfterMs: number) =>
    new IdempotencyEngine(db, {
      inProgressTtlMs: 60_000,
      retentionHours: 24,
      attemptDeadlineMs: 1_800_000,
      renewAfterMs,
    });

  it("only checks (and locks) a lock younger than the threshold, and rewrites an older one", async () => {
    const e = withThreshold(300);
    const s = scope();
    const o = owner(await e.claim(s, HASH));
    expect(o.renewAfterMs).toBe(300);
    const claimedAt = await lockedAt(o);
    expect(await e.refresh(o)).toBe(true);
    expect(await lockedAt(o)).toBe(claimedAt); // young: held, not rewritten
    await sleep(400);
    expect(await e.refresh(o)).toBe(true);
    expect(await lockedAt(o)).toBeGreaterThan(claimedAt); // old: renewed
  });

  it("answers false to a fenced-out owner whether its lock would be young or old", async () => {
    const e = withThreshold(300);
    const s = scope();
    const o = owner(await e.claim(s, HASH));
    await e.finish(o, { status: "completed", response: ok });
    expect(await e.refresh(o)).toBe(false);
    await sleep(400);
    expect(await e.refresh(o)).toBe(false);
  });
});

describe("releasing an attempt that waits for the shopper", () => {
  it("never brings its reconciliation forward: a transient failure while settling it keeps the action timeout", async () => {
    const e = engine(50);
    const s = scope();
    const first = owner(await e.claim(s, HASH));
    await e.park(first, { statusCode: 202, body: JSON.stringify({ status: "requires_action" }), headers: {} }, 60_000);
    const returning = await e.takeOver({ recordId: first.recordId });
    expect(await e.release(returning!, "backoff")).toBe(true); // e.g. a webhook met a 503 while retrieving the intent
    const row = await rowWhere("id", first.recordId);
    expect(row.nextAttemptAt!.getTime() - Date.now()).toBeGreaterThan(50_000);
    expect(await e.claim(s, HASH)).toMatchObject({
      kind: "replay",
      status: "in_progress",
      response: { statusCode: 202 },
    });
  });
});

describe("a duplicate of an attempt this process runs", () => {
  /** An engine whose statements are counted, as another one would see the same database. */
  const counted = (inProgressTtlMs = 60_000) => {
    const statements: string[] = [];
    const handle: Database = {
      query: (text, values) => {
        statements.push(text);
        return db.query(text, values);
      },
    };
    return { e: engine(inProgressTtlMs, handle), statements };
  };

  it("is answered as the database answers it, without a statement, until the owner writes its end", async () => {
    const { e, statements } = counted();
    const other = elsewhere();
    const s = scope();
    const o = owner(await e.claim(s, HASH));
    statements.length = 0;
    // The same body: in progress; another body: a mismatch. The database, asked by another process, agrees.
    expect(await e.claim(s, HASH)).toEqual({ kind: "in_progress", retryAfterSeconds: 1 });
    expect(await e.claim(s, "b".repeat(64))).toEqual({ kind: "mismatch" });
    expect(e.inFlight(s, HASH)).toEqual(await other.claim(s, HASH));
    expect(e.inFlight(s, "b".repeat(64))).toEqual(await other.claim(s, "b".repeat(64)));
    expect(statements).toEqual([]);
    // Another subject's identical key is another request.
    expect(e.inFlight(scope({ key: s.key }), HASH)).toBeNull();
    // Its answer written, the database answers: the replay.
    expect(await e.finish(o, { status: "completed", response: ok })).toBe(true);
    expect(e.inFlight(s, HASH)).toBeNull();
    expect(await e.claim(s, HASH)).toEqual({ kind: "replay", status: "completed", response: ok });
  });

  it("goes to the database once the owner releases, parks or abandons its claim", async () => {
    const { e } = counted();
    const released = scope();
    await e.release(owner(await e.claim(released, HASH)));
    expect(e.inFlight(released, HASH)).toBeNull();
    expect(await e.claim(released, HASH)).toMatchObject({ kind: "claimed", owner: { retaken: true } });

    const parked = scope();
    const response = { statusCode: 202, body: JSON.stringify({ status: "requires_action" }), headers: {} };
    await e.park(owner(await e.claim(parked, HASH)), response, 60_000);
    expect(e.inFlight(parked, HASH)).toBeNull();
    expect(await e.claim(parked, HASH)).toEqual({ kind: "replay", status: "in_progress", response });

    const abandoned = scope();
    await e.abandon(owner(await e.claim(abandoned, HASH)));
    expect(e.inFlight(abandoned, HASH)).toBeNull();
    expect(await e.claim(abandoned, HASH)).toMatchObject({ kind: "claimed", owner: { retaken: false } });
  });

  it("goes to the database when the lease may have ended", async () => {
    // A lease no longer than the margin is never answered from memory: the database retakes it.
    const { e, statements } = counted(500);
    const s = scope();
    const first = owner(await e.claim(s, HASH));
    expect(e.inFlight(s, HASH)).toBeNull();
    await sleep(600);
    statements.length = 0;
    const second = owner(await e.claim(s, HASH));
    expect(second).toMatchObject({ retaken: true });
    expect(statements.length).toBeGreaterThan(0);
    // The first owner, fenced out, ends nothing of the second's.
    expect(await e.finish(first, { status: "completed", response: ok })).toBe(false);
    expect(await e.refresh(second)).toBe(true);
  });

  it("goes to the database once the record is taken over in this process, by any engine", async () => {
    const { e, statements } = counted();
    const s = scope();
    const first = owner(await e.claim(s, HASH));
    // Its lease ended by the database's clock (aged by hand here), and a reconciler here took it over.
    await db.query(`update idempotency_keys set locked_at = locked_at - interval '61 seconds' where id = $1::uuid`, [
      first.recordId,
    ]);
    const reconciler = await elsewhere().takeOver({ recordId: first.recordId, lockToken: first.lockToken });
    expect(reconciler).not.toBeNull();
    statements.length = 0;
    expect(e.inFlight(s, HASH)).toBeNull();
    expect(await e.claim(s, HASH)).toEqual({ kind: "in_progress", retryAfterSeconds: 1 });
    expect(statements).toHaveLength(1);
  });

  it("is not known to an engine on another database handle", async () => {
    const { e } = counted();
    const s = scope();
    await e.claim(s, HASH);
    const { e: another, statements } = counted();
    expect(another.inFlight(s, HASH)).toBeNull();
    expect(await another.claim(s, HASH)).toEqual({ kind: "in_progress", retryAfterSeconds: 1 });
    expect(statements).toHaveLength(1);
  });
});
