import path from "node:path";
import { provisionDatabase, type ProvisionedDatabase } from "@/lib/db/provision";
import { startApp, type AppProcess } from "@/scripts/lib/app-process";
import { migrateAndSeed } from "@/scripts/lib/stack";
import { CARD_KINDS } from "./cards";
import { APP_SETTINGS, CHAOS_CURRENCY, METRICS_TOKEN, WEBHOOK_SECRET, type Cluster } from "./cluster";
import { sleep } from "./http-shopper";
import { Journal } from "./journal";
import type { ChaosOptions } from "./options";
import { startProviderRecorder, type ProviderRecorder } from "./provider-recorder";
import type { Random } from "./random";
import { Shopper } from "./shopper";

/**
 * `--second-shop`: another shop on the soak's Stripe account and key, as
 * staging beside production. Its own `next start` process of the soak's
 * build, its own SHOP_ID and session secret (so its own intent MAC key), its
 * own database on a PostgreSQL server of its own (`<DATA_DIR>/second-shop`,
 * on the port after the soak's standby, recreated every run): the soak's
 * failovers, restarts and lost rows are the soak's shop's faults, not this
 * one's. The provider's faults are the account's, and hit both. It has no
 * webhooks (the account delivers to one endpoint, the soak's), so its
 * maintenance loop — the reconciler and the events catch-up — settles its
 * attempts and reads the account's events, the soak's shop's among them.
 * Its Stripe requests pass through a recorder, the evidence of which
 * refunds and cancellations it asked for (provider-recorder.ts).
 */
export const SECOND_SHOP_ID = "chaos-second-shop";
const SECOND_SHOP_SECRET = "5d1f9b3e7a0c4d8f2b6e1a5c9d3f7b0e4a8c2d6f1b5e9a3c7d0f4b8e2a6c1d5f";
const DATABASE = "checkout_second_shop";
/** Shoppers paying at the second shop at once, each pausing between attempts: steady, light traffic. */
const SHOPPERS = 2;
const PAUSE_MS = { min: 400, max: 1_200 };
const ATTEMPTS_PER_SHOPPER = 6;

export interface SecondShop {
  shopId: string;
  url: string;
  databaseUrl: string;
  journal: Journal;
  recorder: ProviderRecorder;
  /** Lets its shoppers pay until `stopTraffic`, which resolves once every attempt under way has ended. */
  startTraffic(random: Random, products: Array<{ sku: string; priceCents: number }>, stripeJs: StripeJsKeys): void;
  stopTraffic(): Promise<void>;
  stop(): Promise<void>;
}

type StripeJsKeys = { url: string; publishableKey: string };

export async function startSecondShop(
  options: ChaosOptions,
  cluster: Cluster,
  log: (line: string) => void,
): Promise<SecondShop> {
  const cleanups: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err) => log(`cleanup failed: ${err}`));
  };
  try {
    const database: ProvisionedDatabase = await provisionDatabase(
      {
        DATABASE_URL: "",
        DATA_DIR: path.join(cluster.dataDir, "second-shop"),
        EMBEDDED_PG_PORT: cluster.postgresPort + 2,
      },
      { database: DATABASE, recreate: true },
    );
    cleanups.push(() => database.stop());
    await migrateAndSeed(database.url, CHAOS_CURRENCY);
    const recorder = await startProviderRecorder(cluster.emulator.url);
    cleanups.push(() => recorder.close());

    const port = options.port + options.instances + 1;
    const url = `http://127.0.0.1:${port}`;
    const app: AppProcess = await startApp({
      port,
      readyTimeoutMs: 120_000,
      env: {
        DATABASE_URL: database.url,
        STRIPE_SECRET_KEY: cluster.appEnv.STRIPE_SECRET_KEY!,
        STRIPE_API_BASE: recorder.url,
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        SESSION_SECRET: SECOND_SHOP_SECRET,
        SHOP_ID: SECOND_SHOP_ID,
        METRICS_TOKEN,
        APP_ORIGIN: url,
        NEXT_DIST_DIR: options.distDir,
        ...APP_SETTINGS,
        RATE_LIMIT_SCALE: "1000",
      },
    });
    cleanups.push(() => app.stop());
    log(`second     shop ${SECOND_SHOP_ID} on ${url}, its own database ${database.url.replace(/\/\/[^@]*@/, "//")}`);

    const journal = new Journal();
    let stopped = false;
    let workers: Array<Promise<void>> = [];
    return {
      shopId: SECOND_SHOP_ID,
      url,
      databaseUrl: database.url,
      journal,
      recorder,
      startTraffic(random, products, stripeJs) {
        const worker = async (w: number) => {
          const own = random.fork(`second-shop-${w}`);
          let shopper: Shopper | null = null;
          let made = 0;
          for (let n = 0; !stopped; n++) {
            if (!shopper || made >= ATTEMPTS_PER_SHOPPER) {
              shopper = new Shopper(url, journal, own.fork(`customer-${n}`), 0, stripeJs, options.payWith);
              await shopper.browser.arrive();
              made = 0;
            }
            const lines = own
              .shuffle(products)
              .slice(0, own.int(1, 2))
              .map((p) => ({ sku: p.sku, quantity: own.int(1, 2), priceCents: p.priceCents }));
            made += 1;
            const settled = await shopper.checkout(
              lines.map(({ sku, quantity }) => ({ sku, quantity })),
              own.weighted(CARD_KINDS),
              lines.reduce((sum, l) => sum + l.quantity * l.priceCents, 0),
            );
            if (!settled) shopper = null;
            await sleep(own.int(PAUSE_MS.min, PAUSE_MS.max));
          }
        };
        workers = Array.from({ length: SHOPPERS }, (_, w) =>
          worker(w).catch((err: unknown) => log(`second shop's shopper failed: ${err}`)),
        );
      },
      async stopTraffic() {
        stopped = true;
        await Promise.all(workers);
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * `checkout_foreign_intents_total` of a shop's processes, read while the soak
 * runs: a killed instance starts again from zero, so each process's count is
 * kept up to the last look before its restart and added up.
 */
export class ForeignIntentsSeen {
  private readonly before = new Map<string, number>();
  private readonly last = new Map<string, number>();

  async look(urls: string[]): Promise<void> {
    await Promise.all(
      urls.map(async (url) => {
        const value = await foreignIntents(url).catch(() => null);
        if (value === null) return;
        const last = this.last.get(url) ?? 0;
        if (value < last) this.before.set(url, (this.before.get(url) ?? 0) + last);
        this.last.set(url, value);
      }),
    );
  }

  get total(): number {
    let n = 0;
    for (const [url, last] of this.last) n += last + (this.before.get(url) ?? 0);
    return n;
  }
}

async function foreignIntents(url: string): Promise<number> {
  const response = await fetch(`${url}/api/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    signal: AbortSignal.timeout(3_000),
  });
  if (!response.ok) throw new Error(`GET /api/metrics answered ${response.status}`);
  const line = (await response.text()).split("\n").find((l) => l.startsWith("checkout_foreign_intents_total "));
  return line ? Number(line.split(" ")[1]) : 0;
}
