import { admissionGate } from "./admission";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, poolOf, engineDatabase } from "../db";
import { migrate } from "../db/migrate";
import type { PrismaClient } from "../generated/prisma/client";
import { IdempotencyEngine } from "@checkout/idempotency";
import { CheckoutGate } from "./checkout-gate";
import { AbuseLimits } from "./limits";

/**
 * The limits under a least-privilege runtime role, as production runs: the
 * owner applies the migrations, the app connects as a role that may read and
 * write rows and create nothing. Against the machine's PostgreSQL
 * (127.0.0.1:5432, database `test`, trust authentication), in a database and
 * a role of this run's own; skipped, saying why, where no such server answers.
 */
const ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test";
const reachable = await new Promise<string | null>((resolve) => {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2_000 });
  client.connect().then(
    () => client.end().then(() => resolve(null)),
    (err: unknown) => resolve(String(err)),
  );
});
const title = reachable
  ? `the limits under a DML-only role (skipped: no PostgreSQL answers at ${ADMIN_URL}: ${reachable})`
  : "the limits under a DML-only role";

describe.skipIf(reachable !== null)(title, () => {
  const suffix = `${process.pid}_${Math.floor(Math.random() * 1e6)}`;
  const database = `gate_limits_${suffix}`;
  const role = `gate_runtime_${suffix}`;
  let admin: pg.Client;
  let runtime: PrismaClient;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${database}`);
    await migrate(`postgresql://postgres@127.0.0.1:5432/${database}`);
    await admin.query(`create role ${role} login`);
    const owner = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:5432/${database}` });
    await owner.connect();
    try {
      await owner.query(`revoke create on schema public from public`);
      for (const schema of ["public", "rate_limit"]) {
        await owner.query(`grant usage on schema ${schema} to ${role}`);
        await owner.query(`grant select, insert, update, delete on all tables in schema ${schema} to ${role}`);
      }
    } finally {
      await owner.end();
    }
    runtime = createPrismaClient(`postgresql://${role}@127.0.0.1:5432/${database}`);
  });
  afterAll(async () => {
    await runtime?.$disconnect();
    await admin?.query(`drop database if exists ${database} with (force)`);
    await admin?.query(`drop role if exists ${role}`);
    await admin?.end();
  });

  it("cannot create anything: the DDL the limiter once ran at request time is refused", async () => {
    await expect(poolOf(runtime).query("create schema if not exists rate_limit")).rejects.toMatchObject({
      code: "42501",
    });
  });

  it("still counts the session limit, and refuses past it", async () => {
    const events: string[] = [];
    const limits = new AbuseLimits(
      poolOf(runtime),
      {
        windowSeconds: 60,
        scale: 1,
        perWindow: {
          session_per_address: 2,
          return_per_address: 2,
          return_per_session: 2,
          csp_report_per_address: 2,
          ops_signin_per_address: 2,
        },
      },
      (event: string) => void events.push(event),
    );
    const from = `203.0.113.${Math.floor(Math.random() * 250)}`;
    const decisions = [];
    for (let i = 0; i < 3; i++) decisions.push(await limits.consume([["session_per_address", from]]));
    expect(decisions.map((d) => d.ok)).toEqual([true, true, false]);
    expect(decisions[2]).not.toHaveProperty("unavailable");
    expect(events).not.toContain("rate_limit_error");
  });

  it("still admits and refuses fresh checkout keys in the claim", async () => {
    const engine = new IdempotencyEngine(engineDatabase(runtime), {
      inProgressTtlMs: 90_000,
      retentionHours: 24,
      attemptDeadlineMs: 1_800_000,
    });
    const gate = new CheckoutGate({
      perAddress: 100,
      perSession: 2,
      maxOpenAttempts: 100,
      windowSeconds: 86_400,
      declinesPerSession: 100,
      declinesPerAddress: 100,
      declinesPerCard: 100,
      declineWindowSeconds: 3600,
      providerPerSecond: 100,
      providerBreakerSeconds: 5,
    });
    const customerId = randomUUID();
    const kinds = [];
    for (let i = 0; i < 3; i++) {
      const scope = { subjectId: customerId, endpoint: "POST /api/checkout", key: randomUUID() };
      kinds.push(
        (await engine.claim(scope, "r".repeat(64), admissionGate(scope, gate.admission(customerId, "203.0.113.1"))))
          .kind,
      );
    }
    expect(kinds).toEqual(["claimed", "claimed", "refused"]);
  });
});
