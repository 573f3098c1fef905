import { spawnSync } from "node:child_process";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOwnDatabase, type OwnDatabase } from "@/tests/helpers/own-database";
import { parseEnv } from "./env";
import { PRODUCTION_MAX_RATE_LIMIT_SCALE, productionProblems } from "./startup";

/** What production refuses of the emulator's defaults, each in one line naming the variable (lib/startup.ts). */
const ready = {
  NODE_ENV: "production",
  DATABASE_URL: "postgresql://shop@127.0.0.1:5432/shop",
  SESSION_SECRET: "9f3c1e7a5b2d48c6a0e4f7b19d3c5a8e2b6f0d4c7a1e9b3f5d8c2a6e0b4f7d1c",
  STRIPE_SECRET_KEY: "sk_test_51RealAccount",
  STRIPE_WEBHOOK_SECRET: "whsec_real",
};
const problems = (overrides: Record<string, string | undefined>) =>
  productionProblems(parseEnv({ ...ready, ...overrides }));

describe("production refuses the emulator's defaults", () => {
  it("accepts a configured shop", () => {
    expect(problems({})).toEqual([]);
  });

  it("refuses a missing Stripe key, which would mean the local emulator", () => {
    expect(problems({ STRIPE_SECRET_KEY: undefined, STRIPE_WEBHOOK_SECRET: "whsec_x" })).toEqual([
      expect.stringMatching(/^STRIPE_SECRET_KEY: required in production/),
    ]);
    // The emulator on purpose (the test servers): accepted.
    expect(problems({ STRIPE_SECRET_KEY: "sk_test_emulator" })).toEqual([]);
  });

  it("refuses the public default webhook secret of the emulator", () => {
    expect(problems({ STRIPE_SECRET_KEY: "sk_test_emulator", STRIPE_WEBHOOK_SECRET: undefined })).toEqual([
      expect.stringMatching(/^STRIPE_WEBHOOK_SECRET: required in production .*whsec_emulator is public/),
    ]);
  });

  it(`refuses RATE_LIMIT_SCALE over ${PRODUCTION_MAX_RATE_LIMIT_SCALE} with real Stripe, not with the emulator`, () => {
    expect(problems({ RATE_LIMIT_SCALE: String(PRODUCTION_MAX_RATE_LIMIT_SCALE) })).toEqual([]);
    expect(problems({ RATE_LIMIT_SCALE: "1000" })).toEqual([expect.stringMatching(/^RATE_LIMIT_SCALE: at most 10/)]);
    expect(problems({ RATE_LIMIT_SCALE: "1000", STRIPE_SECRET_KEY: "sk_test_emulator" })).toEqual([]);
  });

  it("refuses a plain-http STRIPE_API_BASE that is not this machine, naming it", () => {
    expect(() => parseEnv({ ...ready, STRIPE_API_BASE: "http://stripe.example:12111" })).toThrow(
      /^STRIPE_API_BASE: must be https:\/\//,
    );
  });

  it("asks nothing of development", () => {
    expect(productionProblems(parseEnv({}))).toEqual([]);
  });
});

describe("a server whose database cannot tell it its shop", () => {
  let database: OwnDatabase;
  const role = `startup_limited_${process.pid}`;
  beforeAll(async () => {
    database = await createOwnDatabase("startuprole");
    await sql(database.url, `create role ${role} login password 'limited'`); // may connect, may read no table
  });
  afterAll(async () => {
    await database?.drop();
    await sql(database.url.replace(/\/[^/]*$/, "/postgres"), `drop role if exists ${role}`).catch(() => undefined);
  });

  it("refuses in one line naming DATABASE_URL when its role may not read the shop's identity", () => {
    const url = new URL(database.url);
    url.username = role;
    url.password = "limited";
    const run = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--import",
        "./scripts/lib/allow-server-only.mjs",
        "-e",
        `import("./lib/startup.ts").then((m) => m.shopIdentityOrExit({ DATABASE_URL: ${JSON.stringify(url.toString())} }))`,
      ],
      { encoding: "utf8", timeout: 30_000 },
    );
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^DATABASE_URL: the shop's identity could not be read \(permission denied .+\); check/),
    ]);
  });
});

async function sql(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
