import { withClient } from "./db/reachable";
import { ConfigError, EMULATOR_WEBHOOK_SECRET, parseEnv, type Env, type ShopCurrency } from "./env";
import { SECRET_ADVICE } from "./security/secret-strength";
import { establishShopIdentity } from "./shop-identity";

/**
 * What a production server cannot serve without, checked when it starts (see
 * instrumentation.ts, and scripts/start.ts before it spawns the server).
 * Next.js only logs an error thrown while it registers and then answers every
 * request with 500, so the process exits instead: an orchestrator sees a
 * failed start, not a healthy-looking broken server. Each problem is one line
 * naming the variable to set.
 */
/** Past this, every limit is so raised it limits nothing: a production shop on real Stripe keeps RATE_LIMIT_SCALE at most this. */
export const PRODUCTION_MAX_RATE_LIMIT_SCALE = 10;

export function productionProblems(env: Env): string[] {
  if (env.NODE_ENV !== "production") return [];
  const problems: string[] = [];
  if (!env.DATABASE_URL) {
    problems.push(
      "DATABASE_URL: required in production (postgresql://user:pass@host:5432/checkout); `npm run demo` runs everything on an embedded database instead",
    );
  }
  if (!env.SESSION_SECRET) problems.push(`SESSION_SECRET: required in production: ${SECRET_ADVICE}`);
  // The emulator's defaults are for the demo: production names its provider and its secrets.
  if (!env.given.STRIPE_SECRET_KEY) {
    problems.push(
      "STRIPE_SECRET_KEY: required in production (sk_test_… or rk_test_…); without it the shop would pay through the local emulator (set sk_test_emulator to do that on purpose)",
    );
  }
  if (!env.given.STRIPE_WEBHOOK_SECRET) {
    problems.push(
      `STRIPE_WEBHOOK_SECRET: required in production (the endpoint's whsec_…); the default ${EMULATOR_WEBHOOK_SECRET} is public, anyone could sign events with it`,
    );
  }
  if (!env.usesStripeEmulator && env.RATE_LIMIT_SCALE > PRODUCTION_MAX_RATE_LIMIT_SCALE) {
    problems.push(
      `RATE_LIMIT_SCALE: at most ${PRODUCTION_MAX_RATE_LIMIT_SCALE} in production with real Stripe (it is ${env.RATE_LIMIT_SCALE}: every abuse limit multiplied so far it limits nothing); unset it for 1`,
    );
  }
  return problems;
}

/** The configuration, or the process ends with one line per problem. */
export function configurationOrExit(source: Record<string, string | undefined> = process.env): Env {
  let env: Env;
  try {
    env = parseEnv(source);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return refuse(err.message.split("\n"));
  }
  const problems = productionProblems(env);
  return problems.length > 0 ? refuse(problems) : env;
}

/**
 * The configuration with the shop identity its database records (named by
 * SHOP_ID the first time), or the process ends with one line. The route
 * bundles parse the configuration from process.env on their own: the
 * identity is put there once, before the server answers any request.
 */
export async function shopIdentityOrExit(env: Env): Promise<Env> {
  if (!env.DATABASE_URL) return env; // a server without a database refuses elsewhere (productionProblems, lib/db)
  try {
    const shopId = await establishShopIdentity(env.DATABASE_URL, env.SHOP_ID, { mayName: false });
    process.env.SHOP_ID = shopId;
    return { ...env, SHOP_ID: shopId, shopId };
  } catch (err) {
    if (err instanceof ConfigError) return refuse(err.message.split("\n"));
    // Unreachable, or a role that may not read it: a server that cannot tell whose intents are its own
    // must not take payments (one that started anyway would answer 500 to every request).
    const reason = err instanceof Error ? err.message : String(err);
    return refuse([
      `DATABASE_URL: the shop's identity could not be read (${reason}); check that the database is reachable and that its role may read and write shop_identity (npm run db:migrate creates it).`,
    ]);
  }
}

/**
 * The configuration, or the process ends with one line when the catalogue in
 * the database is priced in another currency than SHOP_CURRENCY: the shop
 * would show and charge the rows' currency, and Stripe refuse its EUR-only
 * methods. `npm run db:seed` re-prices it (docs/decisions/0035).
 */
export async function catalogueCurrencyOrExit(env: Env): Promise<Env> {
  if (!env.DATABASE_URL) return env;
  const problem = await catalogueCurrencyProblem(env.DATABASE_URL, env.SHOP_CURRENCY).catch((err: unknown) =>
    err instanceof ConfigError ? err.message : `DATABASE_URL: the catalogue could not be read (${String(err)})`,
  );
  return problem ? refuse([problem]) : env;
}

export async function catalogueCurrencyProblem(databaseUrl: string, currency: ShopCurrency): Promise<string | null> {
  const { rows } = await withClient(databaseUrl, (client) =>
    client.query<{ sku: string; currency: string }>(
      "select sku, currency from products where currency <> $1 order by sku limit 3",
      [currency],
    ),
  );
  if (rows.length === 0) return null;
  return (
    `SHOP_CURRENCY: is ${currency}, but the catalogue in the database is priced in another currency ` +
    `(${rows.map((r) => `${r.sku} ${r.currency}`).join(", ")}): run npm run db:seed with SHOP_CURRENCY=${currency} to re-price it, ` +
    "or set SHOP_CURRENCY to the catalogue's"
  );
}

function refuse(lines: string[]): never {
  console.error(lines.join("\n"));
  process.exit(1);
}
