import { createServer, type Server } from "node:net";
import { TEST_FREE_PORTS } from "@/scripts/lib/port-plan";
import { TEST_DIST_DIR } from "./constants";

/** What test app servers run with; free of Vitest imports, so the global setup can use it too. */
/** 32 random bytes, hex, as `openssl rand -hex 32` makes them (the app refuses weaker secrets). */
export const TEST_SESSION_SECRET = "9f3c1e7a5b2d48c6a0e4f7b19d3c5a8e2b6f0d4c7a1e9b3f5d8c2a6e0b4f7d1c";
/** For the servers that serve /ops (the end-to-end stack's); the others run without OPS_TOKEN, so /ops is 404 there. */
export const TEST_OPS_TOKEN = "c7d1a9e3f5b2086d4e1c7a3f9b5d2e8a0c6f4b1d7e3a9c5f2b8d0e6a4c1f7b3d";
export const TEST_METRICS_TOKEN = "4b8e2f6a0c3d7e1b5f9a2c6e0d4b8f3a7c1e5d9b2f6a0c4e8d3b7f1a5c9e2d6b";

/** The variables a test app runs with; `overrides` win. */
export function testAppEnv(options: {
  databaseUrl: string;
  stripeApiBase: string;
  stripeKey?: string;
  overrides?: Record<string, string>;
}): Record<string, string> {
  return {
    DATABASE_URL: options.databaseUrl,
    STRIPE_SECRET_KEY: options.stripeKey ?? "sk_test_emulator",
    STRIPE_API_BASE: options.stripeApiBase,
    // Set, not defaulted: production refuses the emulator's defaults (lib/startup.ts); the test emulator signs with it.
    STRIPE_WEBHOOK_SECRET: "whsec_emulator",
    SESSION_SECRET: TEST_SESSION_SECRET,
    SHOP_ID: "test-shop",
    METRICS_TOKEN: TEST_METRICS_TOKEN,
    // Many tests start sessions and attempts from 127.0.0.1 at once: the abuse limits, raised (lib/abuse/limits.ts).
    RATE_LIMIT_SCALE: "1000",
    NEXT_DIST_DIR: TEST_DIST_DIR,
    // Off unless a test asks for it: a reconciler takes over every abandoned attempt in its database, other tests' included.
    MAINTENANCE_INTERVAL_MS: "0",
    // The audit reads every intent of the emulator account: off unless a test asks for it.
    AUDIT_INTERVAL_MS: "0",
    // Off unless a test asks for it: one server serves many files, and a test that makes Stripe answer 429
    // would shed the fresh attempts of the files after it (lib/abuse/checkout-gate.ts).
    PROVIDER_BREAKER_SECONDS: "0",
    // Tests retry a released attempt at once to show it is retakeable; the shop's client waits out Retry-After.
    IDEMPOTENCY_RETAKE_INTERVAL_MS: "0",
    ...options.overrides,
  };
}

/**
 * A port nothing listens on, for a server a test starts: `count` consecutive
 * ones (a primary and its standby) from a random start in the test range of
 * the port plan, below the system's ephemeral ports. Asking the system for
 * "any free port" would hand out one of those, which every outgoing connection
 * of a loaded run may take before the server binds it. Each port is reserved
 * for this process before it is probed (`reserve`), so no other test process
 * on the machine hands it out too while the server that got it is starting or
 * between two of its runs.
 */
export async function freePort(count = 1, range: { min: number; max: number } = TEST_FREE_PORTS): Promise<number> {
  const { min, max } = range;
  for (let tries = 0; tries < 100; tries++) {
    const first = min + Math.floor(Math.random() * (max - min - count));
    const ports = Array.from({ length: count }, (_, i) => first + i);
    if (ports.some((port) => handedOut.has(port))) continue;
    const reserved = await reserveAll(ports);
    if (!reserved) continue;
    if (await allFree(ports)) {
      for (const port of ports) handedOut.add(port);
      return first;
    }
    reserved.release();
  }
  throw new Error(`no ${count} free consecutive ports between ${min} and ${max}`);
}

/**
 * Ports this process has handed out: one handed out for a server that has not
 * bound it yet (or has stopped) probes free, and handing it out again would
 * give two servers of one test the same port.
 */
const handedOut = new Set<number>();

/**
 * Holds `ports` for this process until it exits, or null when another process
 * holds one of them. A probe cannot see a port another test process handed out
 * to a server that has not bound it yet (a database still starting, a demo
 * between its two runs); so each port is claimed first as an abstract Unix
 * socket named after it (Linux), which every test process of the machine,
 * other clones' included, binds before handing the port out, and which the
 * kernel frees when the process ends, however it ends. Elsewhere the
 * reservation is this process's own only.
 */
async function reserveAll(ports: number[]): Promise<{ release(): void } | null> {
  const holders: Server[] = [];
  const release = () => holders.forEach((holder) => holder.close());
  if (process.platform !== "linux") return { release };
  for (const port of ports) {
    const holder = await reserve(port);
    if (!holder) {
      release();
      return null;
    }
    holders.push(holder);
  }
  return { release };
}

/** The machine-wide name of a test port's reservation. */
export const portReservation = (port: number) => `\0checkout-never-twice-test-port-${port}`;

function reserve(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const holder = createServer();
    holder.once("error", () => resolve(null));
    holder.listen(portReservation(port), () => resolve(holder.unref()));
  });
}

/** One probe at a time: a probe on `::` and one on 127.0.0.1 at once would take each other's port. */
async function allFree(ports: number[]): Promise<boolean> {
  for (const port of ports) {
    if (!(await canListen(port, "127.0.0.1")) || !(await canListen(port, "::"))) return false;
  }
  return true;
}

/** Taken or forbidden is "no"; a machine without IPv6 cannot be in the way on `::`. */
function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (err: NodeJS.ErrnoException) =>
      resolve(host === "::" && err.code !== "EADDRINUSE" && err.code !== "EACCES"),
    );
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
