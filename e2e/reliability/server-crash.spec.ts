import { startApp, type AppProcess } from "@/scripts/lib/app-process";
import { expect, recordCheckoutTraffic, test } from "../fixtures";
import { E2E, STACK_APP_ENV } from "../settings";
import { addToCart, confirmationHeading, goToCheckout, payButton } from "../shop";
import { expectChargedOnce, onlyKey, orderIdOf, outcomes } from "./evidence";

/**
 * The run's shared server must outlive every test, so this spec kills a server
 * of its own: the same build, database, emulator and session secret, on the
 * next port. Its claims may be retaken after 12 s, which is safe because its
 * Stripe client gives up after 10 s and never retries: an owner still waiting
 * on Stripe is never replaced. The browser's 60 s of retries outlast both.
 */
const CRASH_APP_PORT = Number(process.env.E2E_CRASH_APP_PORT || E2E.appPort + 1);
const CRASH_APP_ENV = {
  IDEMPOTENCY_IN_PROGRESS_TTL_MS: "12000",
  STRIPE_TIMEOUT_MS: "10000",
  STRIPE_MAX_NETWORK_RETRIES: "0",
};
// The payment's Stripe call waits this long: time to kill the server while the provider holds the charge.
const LATENCY_MS = 4_000;

test(
  "A server killed while the provider holds the charge comes back, and the browser's retries end in one paid order",
  { tag: "@serial" },
  async ({ page, shopper, emulator, workerApp }) => {
    test.setTimeout(150_000);
    const stackEnv = JSON.parse(process.env[STACK_APP_ENV] ?? "null") as Record<string, string> | null;
    expect(stackEnv, `${STACK_APP_ENV}, set by e2e/global-setup.ts`).not.toBeNull();
    const logs: string[] = [];
    const start = () =>
      startApp({ port: CRASH_APP_PORT, env: { ...workerApp.env, ...CRASH_APP_ENV }, log: (line) => logs.push(line) });
    let app: AppProcess = await start();
    try {
      const traffic = recordCheckoutTraffic(page);
      await page.goto(`${app.url}/`);
      await addToCart(page, "Canvas Cap");
      await goToCheckout(page);
      await emulator.faults({ latencyMs: LATENCY_MS });

      await payButton(page).click();
      // The create-and-confirm (the charge) is now held by the provider, not yet executed.
      await expect.poll(async () => (await emulator.stats()).delayed, { timeout: 20_000 }).toBe(1);
      expect(await shopper.paymentIntents()).toEqual([]);

      await app.stop("SIGKILL");
      expect(await app.exited, "no exit code: killed by a signal").toBeNull();
      const killedAt = Date.now();
      await emulator.faults({ latencyMs: 0 });
      // The charge lands with nobody left to record it.
      await expect
        .poll(async () => (await shopper.paymentIntents()).map((i) => i.status), { timeout: 20_000 })
        .toEqual(["succeeded"]);
      // Meanwhile the browser keeps retrying against the dead server.
      await expect
        .poll(
          () =>
            traffic.exchanges.filter((e) => e.sentAt > killedAt && e.failure === "net::ERR_CONNECTION_REFUSED").length,
          { timeout: 30_000 },
        )
        .toBeGreaterThanOrEqual(1);

      const logsBeforeRestart = logs.length;
      app = await start();
      await expect(confirmationHeading(page)).toBeVisible({ timeout: 60_000 });

      const exchanges = await traffic.settled();
      const key = onlyKey(exchanges);
      // The restarted server retook the dead owner's claim and settled it from the provider's record.
      const retakes = logs
        .slice(logsBeforeRestart)
        .flatMap(parseLogLine)
        .filter((event) => event.event === "claim" && event.key === key && event.retaken === true);
      expect(retakes).toHaveLength(1);
      // The page learnt the outcome from the new owner's answer or, if that one outlived the page's
      // request timeout (a cold server), from its replay to the next retry.
      const last = exchanges.at(-1)!;
      expect(outcomes([last])[0], outcomes(exchanges).join(", ")).toMatch(/^201( replayed)?$/);
      const orderId = orderIdOf(last);
      await expect(page).toHaveURL(`${app.url}/orders/${orderId}`);
      expect(await emulator.stats()).toMatchObject({ charges: 1 });
      const intent = await expectChargedOnce(shopper, { amountCents: 2200, key, orderId });
      expect(last.json).toMatchObject({ paymentIntentId: intent.id });
    } finally {
      await app.stop();
    }
  },
);

/** The app's structured (pino) log lines; anything else, e.g. Next's banner, is skipped. */
function parseLogLine(line: string): Array<Record<string, unknown>> {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null ? [value as Record<string, unknown>] : [];
  } catch {
    return [];
  }
}
