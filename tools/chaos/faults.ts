import { isAlive } from "@/lib/is-alive";
import type { Cluster, Instance } from "./cluster";
import type { EmulatorClient, FaultStats, WebhookCounter } from "@checkout/stripe-emulator/client";
import { within } from "./within";
import type { Journal } from "./journal";
import type { Random } from "./random";
import { loseRecentAttempt } from "./rows-lost";
import { secondTab } from "./second-tab";

/**
 * Every fault the soak can inject, as a table. Every kind runs in every
 * soak: it is injected once per round of the seeded schedule, and counts only
 * when its effect was seen:
 * the emulator's or the proxy's counters moved, the process really died.
 */
export interface FaultContext {
  cluster: Cluster;
  emulator: EmulatorClient;
  random: Random;
  /** The attempts so far: the "rows lost" kind picks one of the newest. */
  journal: Journal;
  /** Work that outlives the injection (an instance restarting): awaited before convergence. */
  background: (work: Promise<unknown>) => void;
}

export interface FaultKind {
  name: string;
  what: string;
  /** Injects once; resolves true when the fault was observed to happen. */
  inject(ctx: FaultContext): Promise<boolean>;
  /** Switches the fault off for good (before convergence). */
  disarm?(ctx: FaultContext): Promise<unknown>;
}

/** How long an armed one-shot fault may wait for traffic to trip it before it is disarmed. */
const ARMED_MS = 8_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Arms a counted webhook fault and waits until its counter moves (or disarms it). */
async function armWebhookAndAwait(
  ctx: FaultContext,
  stat: WebhookCounter,
  arm: Record<string, unknown>,
  disarm: Record<string, unknown>,
  ms = ARMED_MS,
): Promise<boolean> {
  const before = await ctx.emulator.webhookStat(stat);
  await ctx.emulator.webhooks({ faults: arm });
  const fired = await within(ms, async () => (await ctx.emulator.webhookStat(stat)) > before);
  if (!fired) await ctx.emulator.webhooks({ faults: disarm });
  return fired;
}

/** A webhook fault that holds for a window of 1–3 s, observed by a counter moving meanwhile. */
function webhookWindow(
  name: string,
  what: string,
  key: string,
  value: (random: Random) => unknown,
  off: unknown,
  stat: WebhookCounter,
): FaultKind {
  return {
    name,
    what,
    async inject(ctx) {
      const before = await ctx.emulator.webhookStat(stat);
      await ctx.emulator.webhooks({ faults: { [key]: value(ctx.random) } });
      await sleep(ctx.random.int(1_000, 3_000));
      await ctx.emulator.webhooks({ faults: { [key]: off } });
      return (await ctx.emulator.webhookStat(stat)) > before;
    },
    disarm: (ctx) => ctx.emulator.webhooks({ faults: { [key]: off } }),
  };
}

/** Arms a counted emulator fault and waits until its counter moves (or disarms it). */
async function armAndAwait(
  ctx: FaultContext,
  stat: keyof FaultStats,
  arm: Record<string, unknown>,
  disarm: Record<string, unknown>,
): Promise<boolean> {
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
    async inject(ctx) {
      const times = ctx.random.int(2, 6);
      const fired = await armAndAwait(
        ctx,
        "failedInjected",
        { failNext: { status: ctx.random.pick(statuses), times } },
        { failNext: null },
      );
      // Let the rest of the burst be spent (or give it up) before another kind re-arms failNext.
      await within(ARMED_MS, async () => (await ctx.emulator.snapshot()).failNext === null);
      await ctx.emulator.faults({ failNext: null });
      return fired;
    },
    disarm: (ctx) => ctx.emulator.faults({ failNext: null }),
  };
}

export const FAULT_KINDS: FaultKind[] = [
  {
    name: "latency_spike",
    what: "the provider answers 0.8–4 s late for 1–3 s (past the app's 2.5 s timeout)",
    async inject(ctx) {
      const before = await ctx.emulator.stat("delayed");
      await ctx.emulator.faults({ latencyMs: ctx.random.int(800, 4_000) });
      await new Promise((r) => setTimeout(r, ctx.random.int(1_000, 3_000)));
      await ctx.emulator.faults({ latencyMs: 0 });
      return (await ctx.emulator.stat("delayed")) > before;
    },
    disarm: (ctx) => ctx.emulator.faults({ latencyMs: 0 }),
  },
  burst("provider_5xx_burst", "the next 2–6 provider requests fail 500 or 503", [500, 503]),
  burst("rate_limit_429_burst", "the next 2–6 provider requests fail 429", [429]),
  {
    name: "dropped_after_charge",
    what: "the provider charges, then cuts the connection before answering",
    inject: (ctx) => armAndAwait(ctx, "dropped", { dropAfterCharge: 1 }, { dropAfterCharge: 0 }),
    disarm: (ctx) => ctx.emulator.faults({ dropAfterCharge: 0 }),
  },
  {
    name: "late_execution",
    what: "a provider write drops its caller at once and executes 0.5–3 s later",
    async inject(ctx) {
      const delayMs = ctx.random.int(500, 3_000);
      const before = await ctx.emulator.stat("lateExecuted");
      await ctx.emulator.faults({ lateExecution: { delayMs, times: 1 } });
      const fired = await within(ARMED_MS + delayMs, async () => (await ctx.emulator.stat("lateExecuted")) > before);
      if (!fired) await ctx.emulator.faults({ lateExecution: null });
      return fired;
    },
    disarm: (ctx) => ctx.emulator.faults({ lateExecution: null }),
  },
  {
    name: "stored_create_500",
    what: "a PaymentIntent create executes nothing and answers 500, stored and replayed for its key",
    inject: (ctx) => armAndAwait(ctx, "storedCreate500", { storeCreate500: 1 }, { storeCreate500: 0 }),
    disarm: (ctx) => ctx.emulator.faults({ storeCreate500: 0 }),
  },
  {
    name: "lost_response",
    what: "the app answers a checkout, the shopper's connection is cut before it arrives",
    async inject(ctx) {
      const before = ctx.cluster.proxy.stats.cut;
      ctx.cluster.proxy.cutResponses(1);
      const fired = await within(ARMED_MS, () => ctx.cluster.proxy.stats.cut > before);
      if (!fired) ctx.cluster.proxy.cutResponses(0);
      return fired;
    },
    disarm: async (ctx) => ctx.cluster.proxy.cutResponses(0),
  },
  {
    name: "instance_kill",
    what: "kill -9 of a random app instance, restarted 0.3–2 s later",
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
    async inject(ctx) {
      await ctx.cluster.database.restart(ctx.random.int(800, 2_500));
      return true;
    },
  },
  {
    name: "failover",
    what: "the asynchronous standby falls 0.2–1.5 s behind, the primary is SIGKILLed, the standby promoted and the endpoint switched to it",
    async inject(ctx) {
      // A new standby is copied after each failover: wait until it streams.
      if (!(await within(60_000, () => ctx.cluster.database.ready()))) return false;
      const report = await ctx.cluster.database.failover({ lagMs: ctx.random.int(200, 1_500) });
      return report.switchMs >= 0;
    },
  },
  {
    name: "second_tab",
    what: "a shopper's second, independent tab presses Pay on the same checkout at the same moment as the first",
    inject: (ctx) => secondTab(ctx.cluster.proxy.url, ctx.journal, ctx.random),
  },
  {
    name: "rows_lost",
    what: "a recent attempt's record, order and lines are deleted at a random point (a failover to an asynchronous replica)",
    async inject(ctx) {
      return (await loseRecentAttempt(ctx.cluster.database.url, ctx.journal, ctx.random, ARMED_MS)) !== null;
    },
  },
  webhookWindow(
    "webhook_duplicate",
    "every event is delivered 1–2 extra times for 1–3 s",
    "duplicate",
    (r) => r.int(1, 2),
    0,
    "duplicatesSent",
  ),
  {
    name: "webhook_reorder",
    what: "the next 2–5 deliveries are held and sent newest first",
    inject: (ctx) =>
      armWebhookAndAwait(ctx, "reorderedBatches", { reorder: { batch: ctx.random.int(2, 5) } }, { reorder: null }),
    disarm: (ctx) => ctx.emulator.webhooks({ faults: { reorder: null } }),
  },
  webhookWindow(
    "webhook_delay",
    "every delivery waits 0.5–3 s for 1–3 s",
    "delayMs",
    (r) => r.int(500, 3_000),
    0,
    "enqueued",
  ),
  {
    name: "webhook_drop_first",
    what: "the next 1–3 delivery attempts never arrive (then retried)",
    inject: (ctx) => armWebhookAndAwait(ctx, "dropped", { dropFirst: ctx.random.int(1, 3) }, { dropFirst: 0 }),
    disarm: (ctx) => ctx.emulator.webhooks({ faults: { dropFirst: 0 } }),
  },
  {
    name: "webhook_bad_signature",
    what: "the next 1–2 deliveries are signed with a wrong secret (then retried)",
    inject: (ctx) => armWebhookAndAwait(ctx, "badSigned", { badSignature: ctx.random.int(1, 2) }, { badSignature: 0 }),
    disarm: (ctx) => ctx.emulator.webhooks({ faults: { badSignature: 0 } }),
  },
];
