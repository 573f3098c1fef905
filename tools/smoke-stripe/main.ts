// npm run smoke:stripe -- --app <url> — the main journeys through a running
// shop, against whatever Stripe it is configured with (docs/stripe-test-mode.md).
import { chromium } from "@playwright/test";
import { findBrowser, realBrowserProbes } from "@/scripts/lib/browser";
import { JOURNEYS as CARD_JOURNEYS, type SmokeContext } from "./journeys";
import { METHOD_JOURNEYS } from "./methods";
import { parseSmokeArgs, USAGE, type SmokeOptions } from "./options";
import { Provider } from "./provider";

async function main(): Promise<number> {
  const parsed = parseSmokeArgs(process.argv.slice(2), process.env);
  if (parsed.kind === "help") {
    console.log(USAGE);
    return 0;
  }
  if (parsed.kind === "refused") {
    console.error(parsed.message);
    return 2;
  }
  const { options } = parsed;
  const health = await shopHealth(options.app);
  if (health === null) {
    console.error(`--app: no shop answers at ${options.app.origin}/api/health: start it, or give its URL`);
    return 2;
  }
  console.log(`shop    ${options.app.origin} · health ${health}`);
  console.log(`stripe  ${stripeLine(options)}`);

  const browser = await chromium.launch({
    executablePath: findBrowser(realBrowserProbes())?.executablePath,
    args: ["--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
  const ctx: SmokeContext = {
    app: options.app,
    browser,
    provider: options.stripe && new Provider(options.stripe),
    refundWaitMs: options.refundWaitMs,
    stepTimeoutMs: options.stepTimeoutMs,
    progress: (line) => console.error(`        ${line}`),
  };
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const journeys = [...CARD_JOURNEYS, ...METHOD_JOURNEYS];
  try {
    // Each journey is a shopper of its own: they run at once, and report in the table's order.
    const running = journeys.map((journey) =>
      journey.run(ctx).catch((err: unknown) => ({
        outcome: "failed" as const,
        detail: err instanceof Error ? err.message.split("\n")[0]! : String(err),
      })),
    );
    for (const [i, journey] of journeys.entries()) {
      const result = await running[i]!;
      counts[result.outcome] += 1;
      console.log(`${journey.name.padEnd(13)} ${result.outcome.padEnd(7)} ${result.detail}`);
    }
  } finally {
    await browser.close();
  }
  console.log(`smoke:stripe: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  return counts.failed === 0 ? 0 : 1;
}

/** `ok` or the shop's own reason; null when nothing answers. */
async function shopHealth(app: URL): Promise<string | null> {
  try {
    const res = await fetch(new URL("/api/health", app), { signal: AbortSignal.timeout(10_000) });
    const body = (await res.json().catch(() => ({}))) as { ok?: boolean; reason?: string };
    return body.ok ? "ok" : `${res.status} ${body.reason ?? "not ready"}`;
  } catch {
    return null;
  }
}

function stripeLine(options: SmokeOptions): string {
  if (!options.stripe) return "STRIPE_SECRET_KEY unset: only what the shop says is checked; the refund is skipped";
  const key = options.stripe.secretKey;
  const masked = `${key.slice(0, 8)}…${key.slice(-4)}`;
  return `${masked} at ${options.stripe.apiBase ?? "api.stripe.com"}: each attempt's PaymentIntent is checked`;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
