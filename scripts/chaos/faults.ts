import type { Capabilities } from "./capabilities";
import type { Cluster, Instance } from "./cluster";
import { within, type EmulatorControl } from "./emulator-control";
import type { Random } from "./random";

/**
 * Every fault the soak can inject, as a table. A kind is enabled when the
 * running system supports it (`disabled` says why not), is injected once per
 * round of the seeded schedule, and counts only when its effect was seen:
 * the emulator's or the proxy's counters moved, the process really died.
 */
export interface FaultContext {
  cluster: Cluster;
  emulator: EmulatorControl;
  random: Random;
  /** Work that outlives the injection (an instance restarting): awaited before convergence. */
  background: (work: Promise<unknown>) => void;
}

export interface FaultKind {
  name: string;
  what: string;
  disabled(caps: Capabilities): string | null;
  /** Injects once; resolves true when the fault was observed to happen. */
  inject(ctx: FaultContext): Promise<boolean>;
}

/** How long an armed one-shot fault may wait for traffic to trip it before it is disarmed. */
const ARMED_MS = 8_000;

const emulatorHas = (key: string) => (caps: Capabilities) => (caps.emulatorFaults.includes(key) ? null : `the emulator has no "${key}" fault yet`);

/** Arms a counted emulator fault and waits until its counter moves (or disarms it). */
async function armAndAwait(ctx: FaultContext, stat: string, arm: Record<string, unknown>, disarm: Record<string, unknown>): Promise<boolean> {
  const before = await ctx.emulator.stat(stat);
  await ctx.emulator.faults(arm);
  const fired = await within(ARMED_MS, async () => (await ctx.emulator.stat(stat)) > before);
  if (!fired) await ctx.emulator.faults(disarm);
  return fired;
}

function burst(name: string, what: string, statuses: number[]): FaultKind {
  return {
    name,
    what,
    disabled: emulatorHas("failNext"),
    async inject(ctx) {
      const times = ctx.random.int(2, 6);
      const fired = await armAndAwait(ctx, "failedInjected", { failNext: { status: ctx.random.pick(statuses), times } }, { failNext: null });
      // Let the rest of the burst be spent (or give it up) before another kind re-arms failNext.
      await within(ARMED_MS, async () => (await ctx.emulator.snapshot()).failNext === null);
      await ctx.emulator.faults({ failNext: null });
      return fired;
    },
  };
}

export const FAULT_KINDS: FaultKind[] = [
  {
    name: "latency_spike",
    what: "the provider answers 0.8–4 s late for 1–3 s (past the app's 2.5 s timeout)",
    disabled: emulatorHas("latencyMs"),
    async inject(ctx) {
      const before = await ctx.emulator.stat("delayed");
      await ctx.emulator.faults({ latencyMs: ctx.random.int(800, 4_000) });
      await new Promise((r) => setTimeout(r, ctx.random.int(1_000, 3_000)));
      await ctx.emulator.faults({ latencyMs: 0 });
      return (await ctx.emulator.stat("delayed")) > before;
    },
  },
  burst("provider_5xx_burst", "the next 2–6 provider requests fail 500 or 503", [500, 503]),
  burst("rate_limit_429_burst", "the next 2–6 provider requests fail 429", [429]),
  {
    name: "dropped_after_charge",
    what: "the provider charges, then cuts the connection before answering",
    disabled: emulatorHas("dropAfterCharge"),
    inject: (ctx) => armAndAwait(ctx, "dropped", { dropAfterCharge: 1 }, { dropAfterCharge: 0 }),
  },
  {
    name: "lost_response",
    what: "the app answers a checkout, the shopper's connection is cut before it arrives",
    disabled: () => null,
    async inject(ctx) {
      const before = ctx.cluster.proxy.stats.cut;
      ctx.cluster.proxy.cutResponses(1);
      const fired = await within(ARMED_MS, () => ctx.cluster.proxy.stats.cut > before);
      if (!fired) ctx.cluster.proxy.cutResponses(0);
      return fired;
    },
  },
  {
    name: "instance_kill",
    what: "kill -9 of a random app instance, restarted 0.3–2 s later",
    disabled: () => null,
    async inject(ctx) {
      const { instances } = ctx.cluster;
      // One instance down at a time: wait for the last one to be back.
      if (!(await within(90_000, () => instances.every((i) => i.process !== null)))) return false;
      const victim: Instance = ctx.random.pick(instances);
      const pid = victim.process!.pid;
      await ctx.cluster.kill(victim);
      const dead = !isAlive(pid);
      const downMs = ctx.random.int(300, 2_000);
      ctx.background(new Promise((r) => setTimeout(r, downMs)).then(() => ctx.cluster.restart(victim)));
      return dead;
    },
  },
  {
    name: "database_restart",
    what: "PostgreSQL stops (every connection cut) and starts again 0.8–2.5 s later",
    disabled: (caps) => (caps.databaseRestart ? null : "DATABASE_URL's server is not ours to restart (the embedded default is)"),
    async inject(ctx) {
      await ctx.cluster.database.restart!(ctx.random.int(800, 2_500));
      return true;
    },
  },
];

export function enabledFaults(caps: Capabilities): FaultKind[] {
  return FAULT_KINDS.filter((kind) => kind.disabled(caps) === null);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
