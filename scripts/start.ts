// npm start — the built app (`npm run build`) against the configured services
// and nothing else: no emulator, no embedded database, no migrations (those
// are `npm run db:migrate`, an explicit step of a deploy). What it refuses,
// it refuses in one line naming the variable, before the server starts.
import "./lib/dotenv";
import { existsSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "@/lib/env";
import { assertReachable } from "@/lib/db/reachable";
import { assertPortFree } from "@/lib/ports";
import { establishShopIdentity } from "@/lib/shop-identity";
import { catalogueCurrencyProblem, configurationOrExit } from "@/lib/startup";
import { startApp } from "./lib/app-process";
import { runUntilSignal } from "./lib/run-until-signal";

runUntilSignal(async () => {
  // The same checks the server makes when it starts (lib/startup.ts), as production.
  const env = configurationOrExit({ ...process.env, NODE_ENV: "production" });
  const distDir = process.env.NEXT_DIST_DIR || ".next";
  if (!existsSync(path.join(distDir, "BUILD_ID")))
    throw new ConfigError(
      `No production build in ${distDir}: run \`npm run build\` first (or set NEXT_DIST_DIR to where it is)`,
    );
  await assertPortFree(env.PORT, "PORT");
  await assertReachable(env.DATABASE_URL!);
  // The shop its database records (named by SHOP_ID the first time); the server checks it again as it starts.
  await establishShopIdentity(env.DATABASE_URL!, env.SHOP_ID, { mayName: false });
  const wrongCurrency = await catalogueCurrencyProblem(env.DATABASE_URL!, env.SHOP_CURRENCY);
  if (wrongCurrency) throw new ConfigError(wrongCurrency);
  console.log(`[start] stripe ${env.stripeApiBase ?? "api.stripe.com (test mode)"}`);
  const app = await startApp({ port: env.PORT, hostname: env.HOST, env: {}, log: (line) => console.log(line) });
  console.log(`[start] Ready on ${app.url}`);
  return { apps: [app], stop: () => app.stop() };
});
