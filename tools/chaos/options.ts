/**
 * `npm run chaos -- [--attempts N] [--instances N] [--seed N] [--duration S]
 * [--concurrency N] [--fault-rounds N] [--out FILE] [--port P]
 * [--emulator-port P] [--dist-dir DIR] [--reuse-build] [--broken naive]
 * [--converge-timeout S] [--double-press PCT] [--pay-with confirmation-token|payment-method]
 * [--second-shop]`
 */
export interface ChaosOptions {
  attempts: number;
  instances: number;
  seed: number;
  /** Seconds: stop starting attempts after this long even if fewer than `attempts` were made. */
  durationSeconds: number | null;
  /** Shoppers paying at the same time. */
  concurrency: number;
  /** Every enabled fault kind is injected once per round; the rounds are spread over the attempts. */
  faultRounds: number;
  out: string;
  /** The proxy's port; instances listen on the ports after it. */
  port: number;
  emulatorPort: number;
  distDir: string;
  reuseBuild: boolean;
  /**
   * The checker's own test: route checkouts to the lab's naive endpoint (no
   * idempotency at all), a deliberately broken build the checker must catch.
   */
  broken: "naive" | null;
  /** Seconds the maintenance loop gets to finish everything after the faults stop. */
  convergeTimeoutSeconds: number;
  /** Percent of attempts whose shopper presses Pay twice. */
  doublePressPercent: number;
  /**
   * What shoppers pay with: a ConfirmationToken Stripe.js makes of the typed
   * card (the checkout page), or the card's test payment method (an API
   * client). A token pays once, so resending it can never charge twice even
   * without idempotency; the broken-build test pays with payment methods.
   */
  payWith: "confirmation-token" | "payment-method";
  /**
   * A second shop on the same Stripe account and key, with its own process,
   * database, SHOP_ID and secret, paying all through the soak
   * (second-shop.ts); the run then also fails if either shop touched the
   * other's intents, or if either never saw the other's.
   */
  secondShop: boolean;
}

export class UsageError extends Error {}

const USAGE =
  "Usage: npm run chaos -- [--attempts N] [--instances N] [--seed N] [--duration S] [--concurrency N] " +
  "[--fault-rounds N] [--out FILE] [--port P] [--emulator-port P] [--dist-dir DIR] [--reuse-build] [--broken naive] [--converge-timeout S] [--double-press PCT] " +
  "[--pay-with confirmation-token|payment-method] [--second-shop]";

export function parseOptions(argv: string[], random: () => number = Math.random): ChaosOptions {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--reuse-build" || arg === "--second-shop") flags.add(arg);
    else if (arg.startsWith("--") && i + 1 < argv.length) values.set(arg, argv[++i]!);
    else throw new UsageError(`Unknown argument ${arg}. ${USAGE}`);
  }
  const known = [
    "--attempts",
    "--instances",
    "--seed",
    "--duration",
    "--concurrency",
    "--fault-rounds",
    "--out",
    "--port",
    "--emulator-port",
    "--dist-dir",
    "--broken",
    "--converge-timeout",
    "--double-press",
    "--pay-with",
  ];
  for (const name of values.keys()) if (!known.includes(name)) throw new UsageError(`Unknown option ${name}. ${USAGE}`);
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = values.get(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new UsageError(`${name} takes a whole number from ${min} to ${max}, got ${raw}`);
    return n;
  };
  const attempts = int("--attempts", 1000, 1, 1_000_000);
  const broken = values.get("--broken") ?? null;
  if (broken !== null && broken !== "naive") throw new UsageError(`--broken takes "naive", got ${broken}`);
  const payWith = values.get("--pay-with") ?? "confirmation-token";
  if (payWith !== "confirmation-token" && payWith !== "payment-method")
    throw new UsageError(`--pay-with takes "confirmation-token" or "payment-method", got ${payWith}`);
  const duration = values.has("--duration") ? int("--duration", 0, 1, 86_400) : null;
  return {
    attempts,
    instances: int("--instances", 3, 1, 16),
    seed: int("--seed", Math.floor(random() * 1_000_000), 0, 2 ** 31 - 1),
    durationSeconds: duration,
    concurrency: int("--concurrency", 12, 1, 500),
    // About one round per 50 attempts: a 1,000-attempt run injects every kind 20 times.
    faultRounds: int("--fault-rounds", Math.max(1, Math.round(attempts / 50)), 0, 10_000),
    out: values.get("--out") ?? "chaos/results.json",
    port: int("--port", 3400, 1, 65_000),
    emulatorPort: int("--emulator-port", 12400, 0, 65_535),
    distDir: values.get("--dist-dir") ?? ".next-chaos",
    reuseBuild: flags.has("--reuse-build"),
    broken,
    convergeTimeoutSeconds: int("--converge-timeout", 120, 1, 3_600),
    doublePressPercent: int("--double-press", 20, 0, 100),
    payWith,
    secondShop: flags.has("--second-shop"),
  };
}
