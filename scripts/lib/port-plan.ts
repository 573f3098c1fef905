/**
 * The one port plan: where each user of the stack listens and keeps its
 * embedded PostgreSQL, so that the demo, Vitest, Playwright and the bench run
 * side by side on one machine. The demo and `npm run dev` use the variables'
 * own defaults (PORT 3000, STRIPE_EMULATOR_PORT 12111, the database in
 * DATA_DIR on EMBEDDED_PG_PORT 54329; docs/contract.md); each other user keeps
 * its database in a folder of DATA_DIR on a port of its own after TEST_PG_BASE:
 * 24329 by default, below the system's ephemeral range (32768 and up on
 * Linux), so that no server the tests start on "any free port" can take it.
 * The chaos soak's primary and standby take two consecutive ports, and its
 * second shop's server the next. Servers
 * the tests start on a port of their own (tests/app-env.ts, `freePort`) take
 * one from TEST_FREE_PORTS, below the ephemeral range too, reserved machine-wide
 * before it is handed out.
 */
export const PORT_PLAN = {
  vitest: { folder: "test", pgOffset: 1 },
  bench: { folder: "bench", pgOffset: 2, app: 3300, emulator: 12113 },
  e2e: { folder: "e2e", pgOffset: 3, app: 3100, emulator: 12112 },
  chaos: { folder: "chaos", pgOffset: 4 }, // and pgOffset + 1, the standby; + 2, the second shop's (--second-shop)
} as const;

export type StackUser = keyof typeof PORT_PLAN;

/**
 * `npm test` runs Vitest's tiers as processes of their own at once
 * (scripts/test.mjs), each naming itself in TEST_TIER: `app` and `serial`
 * keep every database of the plan in a folder of their own and count its
 * ports 10 and 20 further on, so that no port is another tier's and no
 * tier's exit stops a database another still uses.
 */
const TIER_SHIFT: Record<string, number> = { app: 10, serial: 20 };

/** DATA_DIR and EMBEDDED_PG_PORT for `user`'s embedded PostgreSQL. */
export function embeddedDatabaseOf(
  user: StackUser,
  env: NodeJS.ProcessEnv = process.env,
): { DATA_DIR: string; EMBEDDED_PG_PORT: string } {
  const { folder, pgOffset } = PORT_PLAN[user];
  const tier = env.TEST_TIER && TIER_SHIFT[env.TEST_TIER] !== undefined ? env.TEST_TIER : undefined;
  return {
    DATA_DIR: [env.DATA_DIR || ".data", tier, folder].filter(Boolean).join("/"),
    EMBEDDED_PG_PORT: String(Number(env.TEST_PG_BASE || 24329) + (tier ? TIER_SHIFT[tier]! : 0) + pgOffset),
  };
}

/** Where the tests' servers on a free port listen: below TEST_PG_BASE's default and the ephemeral range. */
export const TEST_FREE_PORTS = { min: 20_000, max: 24_300 } as const;
