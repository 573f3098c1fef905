/**
 * Command line: `npm run bench -- [--quick|--full] [--reuse-build] [scenario…]`.
 * Quick (the default) fits in 3 minutes on 2 cores, full in 20.
 */
export type Mode = "quick" | "full";

export interface Sizes {
  /** Seconds of each measured HTTP load, split into `rounds` alternating with its comparison, after a warm-up. */
  loadSeconds: number;
  rounds: number;
  warmupSeconds: number;
  /** Concurrent duplicates in the storm. */
  stormConnections: number;
  /** Connections of the fresh-checkout and replay loads. */
  connections: number;
  /** Claims per run in the engine-versus-raw comparison. */
  engineClaims: number;
  /** Rows stored before the table-growth and cleanup probes. */
  storedKeys: number;
  /** Claims per latency probe (growth, cleanup). */
  probeClaims: number;
  /** Webhook deliveries processed, and raw event-id inserts, per run. */
  webhookEvents: number;
  /** PaymentIntents (and paid orders) in the day the audit scenario audits. */
  auditIntents: number;
}

export const SIZES: Record<Mode, Sizes> = {
  quick: {
    loadSeconds: 6,
    rounds: 2,
    warmupSeconds: 1,
    stormConnections: 200,
    connections: 32,
    engineClaims: 4_000,
    storedKeys: 100_000,
    probeClaims: 2_000,
    webhookEvents: 2_000,
    auditIntents: 100_000,
  },
  full: {
    loadSeconds: 24,
    rounds: 4,
    warmupSeconds: 2,
    stormConnections: 200,
    connections: 32,
    engineClaims: 20_000,
    storedKeys: 1_000_000,
    probeClaims: 10_000,
    webhookEvents: 10_000,
    auditIntents: 100_000,
  },
};

export interface BenchOptions {
  mode: Mode;
  reuseBuild: boolean;
  /** Scenario names to run; empty means all. */
  only: string[];
}

/** A mistake on the command line: printed as a message, not a stack trace. */
export class UsageError extends Error {}

export function parseOptions(argv: string[], known: string[]): BenchOptions {
  const options: BenchOptions = { mode: "quick", reuseBuild: false, only: [] };
  for (const arg of argv) {
    if (arg === "--quick") options.mode = "quick";
    else if (arg === "--full") options.mode = "full";
    else if (arg === "--reuse-build") options.reuseBuild = true;
    else if (known.includes(arg)) options.only.push(arg);
    else
      throw new UsageError(
        `Unknown argument ${arg}. Usage: npm run bench -- [--quick|--full] [--reuse-build] [${known.join("|")}…]`,
      );
  }
  return options;
}
