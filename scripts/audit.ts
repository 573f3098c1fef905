// npm run audit -- [--since 24h | --from ISO --to ISO] [--json] — the shop's
// database against Stripe's record of the window (lib/audit/). Exit 1 when a
// finding says money is wrong, 2 when refused, else 0.
import "./lib/dotenv";
import { parseArgs } from "node:util";
import { runAudit } from "@/lib/audit/audit";
import { takeAuditLease } from "@/lib/audit/schedule";
import { moneyWrong } from "@/lib/audit/findings";
import { auditStripeClient } from "@/lib/audit/client";
import { configuredShopIdentity } from "@/lib/checkout/intent-ownership";
import { auditTable } from "@/lib/audit/table";
import { parseWindow } from "@/lib/audit/window";
import { createPrismaClient } from "@/lib/db";
import { provisionDatabase } from "@/lib/db/provision";
import { ConfigError, parseEnv } from "@/lib/env";
import { withShopIdentity } from "@/lib/shop-identity";

const USAGE = "Usage: npm run audit -- [--since 24h | --from ISO --to ISO] [--json]";

async function main(): Promise<number> {
  let values: { since?: string; from?: string; to?: string; json?: boolean; help?: boolean };
  try {
    values = parseArgs({
      args: process.argv.slice(2),
      options: {
        since: { type: "string" },
        from: { type: "string" },
        to: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean" },
      },
    }).values;
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const window = parseWindow(values);
  if (typeof window === "string") {
    console.error(`${window}\n${USAGE}`);
    return 2;
  }
  const config = parseEnv();
  const database = await provisionDatabase(config);
  const prisma = createPrismaClient(database.url);
  // One audit at a time across the fleet and its tools: the scheduled one's lease (lib/audit/schedule.ts).
  const lease = await takeAuditLease(prisma).catch(async (err: unknown) => {
    await prisma.$disconnect();
    await database.stop();
    throw err;
  });
  if ("heldUntil" in lease) {
    console.error(
      `npm run audit: another audit is running (an app instance's or another npm run audit), its lease held until ${lease.heldUntil?.toISOString() ?? "now"}; run it again once that one has ended`,
    );
    await prisma.$disconnect();
    await database.stop();
    return 2;
  }
  // Stopped by Ctrl-C, it gives the lease back rather than keep the fleet's audits off until it expires.
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => void lease.release().finally(() => process.exit(130)));
  try {
    const env = await withShopIdentity(config, database);
    const report = await runAudit(
      {
        prisma,
        stripe: auditStripeClient(env),
        identity: configuredShopIdentity(env),
        attemptDeadlineMs: env.PAYMENT_ATTEMPT_DEADLINE_MS,
        actionTimeoutMs: env.PAYMENT_ACTION_TIMEOUT_MS,
        log: (event, fields) => console.error(JSON.stringify({ event, ...fields })),
      },
      window,
    );
    console.log(values.json ? JSON.stringify(report) : auditTable(report));
    return moneyWrong(report) ? 1 : 0;
  } finally {
    await lease.release();
    await prisma.$disconnect();
    await database.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(2);
  },
);
