import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./app-server";
import { TEST_DIST_DIR } from "./constants";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { waitFor } from "./helpers/shopper";
import { journeyLines, smoke } from "./helpers/smoke";
import { makeScratchDir, removeScratchDir } from "./helpers/scratch";

/**
 * `npm run smoke:stripe` against the demo, started as `npm run demo` starts
 * it (scripts/demo.ts on a fresh DATA_DIR, the test build; its events
 * catch-up every 2 s rather than every minute): every journey passes, and
 * what it reports is what the emulator's ledger holds. With no webhook
 * delivered, as with `stripe listen` stopped, the refund still arrives
 * through the catch-up. Then the same demo with its payments refused (the
 * emulator refusing the key, as Stripe refuses a revoked one): every journey
 * fails with the shop's answer. The demo takes SEPA Direct Debit and iDEAL
 * too, priced in EUR (a USD demo offering them does not start); Stripe's days for a debit pass on the emulator's clock, which the test
 * (not the smoke, which uses no emulator control) moves on every second.
 */
const JOURNEYS = ["pay", "decline", "3ds-complete", "3ds-fail", "replay", "refund", "sepa", "ideal"];
/** The journeys that need STRIPE_SECRET_KEY: skipped without it. */
const NEED_THE_KEY = ["refund", "sepa", "ideal"];

let demo: { stop(): Promise<number | null>; output(): string };
let app = "";
let emulator: EmulatorClient;
let stripeEnv: Record<string, string>;
let dataDir = "";
let clock: NodeJS.Timeout | undefined;

beforeAll(async () => {
  const ports = { app: await freePort(), pg: await freePort(), emulator: await freePort() };
  dataDir = await makeScratchDir("smoke-demo-");
  demo = await startDemo({
    DATABASE_URL: "", // the demo's default: embedded
    DATA_DIR: dataDir,
    PORT: String(ports.app),
    EMBEDDED_PG_PORT: String(ports.pg),
    STRIPE_EMULATOR_PORT: String(ports.emulator),
    NEXT_DIST_DIR: TEST_DIST_DIR,
    MAINTENANCE_INTERVAL_MS: "1000",
    EVENTS_CATCH_UP_INTERVAL_MS: "2000",
    PAYMENT_METHOD_TYPES: "card,sepa_debit,ideal",
    // Both take EUR only, at Stripe and at the emulator: the demo's catalogue is seeded in it.
    SHOP_CURRENCY: "eur",
  });
  app = `http://localhost:${ports.app}`;
  emulator = new EmulatorClient(`http://127.0.0.1:${ports.emulator}`);
  // The demo's own key (.env.example), so the smoke reads the account the shop pays into.
  stripeEnv = { STRIPE_SECRET_KEY: "sk_test_emulator", STRIPE_API_BASE: emulator.url };
  clock = setInterval(() => void emulator.advanceClock(30).catch(() => undefined), 1_000);
});

afterAll(async () => {
  clearInterval(clock);
  expect(await demo?.stop()).toBe(0);
  await removeScratchDir(dataDir); // after a clean stop only: otherwise the demo's database and log stay to be looked at
});

describe("npm run smoke:stripe", () => {
  it("passes every journey against the demo, and Stripe's record holds what it reports", async () => {
    const run = await smoke(["--app", app], stripeEnv);
    expect(run.code, run.output).toBe(0);
    expect(journeyLines(run.stdout)).toEqual(JOURNEYS.map((name) => [name, "passed"]));
    expect(run.stdout).toContain("smoke:stripe: 8 passed, 0 failed, 0 skipped");
    // In EUR, the one currency both take: the emulator refuses them in any other, as Stripe does.
    expect(run.stdout).toMatch(
      /^sepa +passed +202 processing, paid [\d.]+ s later \(IBAN …3000\) .* succeeded \d+ eur$/m,
    );
    expect(run.stdout).toMatch(
      /^ideal +passed +202 to the bank, Authorize, "Paid — thank you" on the return page.* succeeded \d+ eur$/m,
    );
    // It said what it waited for while the shop recorded the refund.
    expect(run.stderr).toMatch(/refund: waiting up to 180 s for GET \/api\/orders\/\S+ to show re_\S+/);

    // One intent per attempt, as each line says: the replay made one, the refunded one was refunded.
    const ledger = await emulator.ledger();
    const reported = [...run.stdout.matchAll(/PaymentIntent, (pi_\w+) (\w+)/g)].map((m) => [m[1], m[2]]);
    expect(reported).toHaveLength(7);
    for (const [id, status] of reported) expect(ledger.find((i) => i.id === id)?.status).toBe(status);
    expect(ledger.map((i) => i.status).sort()).toEqual([
      "canceled",
      "requires_payment_method",
      "succeeded",
      "succeeded",
      "succeeded",
      "succeeded",
      "succeeded",
      "succeeded",
    ]);
    expect(new Set(ledger.map((i) => i.currency))).toEqual(new Set(["eur"]));
    const refunded = /(pi_\w+) refunded/.exec(run.stdout)?.[1];
    expect(ledger.map((i) => i.id)).toContain(refunded);
  }, 180_000);

  it("without STRIPE_SECRET_KEY checks what the shop says and skips what needs the key, naming the variable", async () => {
    const run = await smoke(["--app", app], {});
    expect(run.code, run.output).toBe(0);
    expect(journeyLines(run.stdout)).toEqual(
      JOURNEYS.map((name) => [name, NEED_THE_KEY.includes(name) ? "skipped" : "passed"]),
    );
    expect(run.stdout).toMatch(/^refund +skipped set STRIPE_SECRET_KEY/m);
    expect(run.stdout).toMatch(/^sepa +skipped set STRIPE_SECRET_KEY .* a SEPA debit's token/m);
    expect(run.stdout).toContain("smoke:stripe: 5 passed, 0 failed, 3 skipped");
  }, 120_000);

  it("with no webhook delivered, as with `stripe listen` stopped, waits for the events catch-up to record the refund", async () => {
    const webhooks = new EmulatorClient(emulator.url);
    const { url } = await webhooks.webhookSnapshot();
    await webhooks.webhooks({ url: null });
    try {
      // The earlier runs' deliveries finished: from here on, none is made.
      const before = await waitFor("the earlier deliveries to finish", async () => {
        const { stats } = await webhooks.webhookSnapshot();
        return stats.pending === 0 ? stats : null;
      });
      const run = await smoke(["--app", app], stripeEnv);
      const after = (await webhooks.webhookSnapshot()).stats;
      expect(after.delivered).toBe(before.delivered); // nothing reached the shop by webhook
      expect(after.enqueued).toBe(before.enqueued);
      expect(run.code, run.output).toBe(0);
      expect(run.stdout).toMatch(/^refund +passed +re_\w+ succeeded at Stripe, recorded by the shop after/m);
    } finally {
      await webhooks.webhooks({ url });
    }
  }, 180_000);

  it("fails every journey, with the shop's answer, against a shop whose payments are refused", async () => {
    await emulator.faults({ refuse: { status: 401 } });
    try {
      const before = (await emulator.stats()).refused;
      // The 3-D Secure journeys wait a step out for the provider's page that never comes: 8 s, not 30.
      const run = await smoke(["--app", app, "--step-timeout", "8"], stripeEnv);
      expect((await emulator.stats()).refused).toBeGreaterThan(before); // the refusal really happened
      expect(run.code, run.output).toBe(1);
      expect(journeyLines(run.stdout)).toEqual(JOURNEYS.map((name) => [name, "failed"]));
      expect(run.stdout).toMatch(/^pay +failed +Stripe refused a test ConfirmationToken for pm_card_visa: /m);
      expect(run.stdout).toMatch(
        /^3ds-complete +failed +Pay did not lead to the provider's page within 8 s: .*503 payment_unavailable/m,
      );
      expect(run.stdout).toMatch(/^ideal +failed +Stripe refused a test ConfirmationToken for ideal: /m);
      expect(run.stdout).toContain("smoke:stripe: 0 passed, 8 failed, 0 skipped");
    } finally {
      await emulator.faults({ refuse: null });
    }
  }, 180_000);

  it("has no USD shop to run against: a demo asked for SEPA and iDEAL in USD is refused at start-up, in one line", async () => {
    const scratch = await makeScratchDir("smoke-usd-");
    try {
      const child = spawn(process.execPath, DEMO_ARGS, {
        env: {
          ...process.env,
          DATABASE_URL: "",
          DATA_DIR: scratch,
          PORT: String(await freePort()),
          EMBEDDED_PG_PORT: String(await freePort()),
          STRIPE_EMULATOR_PORT: String(await freePort()),
          PAYMENT_METHOD_TYPES: "card,sepa_debit,ideal",
          SHOP_CURRENCY: "usd",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c: Buffer) => (stdout += c));
      child.stderr.on("data", (c: Buffer) => (stderr += c));
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      expect(code).toBe(1);
      expect(stderr.trim().split("\n")).toEqual([
        "PAYMENT_METHOD_TYPES: sepa_debit, ideal take EUR only at Stripe, and SHOP_CURRENCY is usd: set SHOP_CURRENCY=eur, or take them out of PAYMENT_METHOD_TYPES",
      ]);
      expect(stdout).not.toContain("Ready: open"); // nothing started
    } finally {
      await removeScratchDir(scratch);
    }
  });

  // The refusals of arguments and variables: tools/smoke-stripe/options.test.ts. Here, the command's own.
  it.each([
    [[], /^--app: required: the shop's URL/],
    [["--app", "http://127.0.0.1:9"], /^--app: no shop answers at http:\/\/127\.0\.0\.1:9\/api\/health/],
  ])("refuses %j in one line on stderr, exit 2", async (args, message) => {
    const run = await smoke(args, {});
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toEqual([expect.stringMatching(message)]);
    expect(run.stdout).toBe("");
  });
});

/** `npm run demo -- --no-build`. */
const DEMO_ARGS = [
  "--import",
  "tsx",
  "--import",
  "./scripts/lib/allow-server-only.mjs",
  "scripts/demo.ts",
  "--no-build",
];

/** scripts/demo.ts as `npm run demo -- --no-build` runs it, until "Ready: open". */
async function startDemo(env: Record<string, string>) {
  const child = spawn(process.execPath, DEMO_ARGS, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c));
  child.stderr.on("data", (c: Buffer) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (!output.includes("Ready: open")) return;
      clearInterval(timer);
      resolve();
    }, 100);
    void exited.then(() => {
      clearInterval(timer);
      reject(new Error(`demo exited early:\n${output}`));
    });
  });
  return {
    output: () => output,
    stop: () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}
