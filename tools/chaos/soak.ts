import { auditAgreement, type AuditAgreement } from "./audit-agreement";
import { CARD_KINDS } from "./cards";
import { gatherEvidence, standingCharges } from "./checker/gather";
import type { FailoverReport } from "./replicated-postgres";
import { check, type Verdict } from "./checker/invariants";
import { checkCrossShop, onlyShop, withoutShop, type CrossShopVerdict } from "./cross-shop";
import { SHOP_ID, startCluster, WEBHOOK_SECRET } from "./cluster";
import { WEBHOOK_PATH } from "@/scripts/lib/stack";
import { awaitConvergence, type Convergence } from "./converge";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { FAULT_KINDS } from "./faults";
import { Journal } from "./journal";
import { methodsLine, paymentKinds, startStripeClock } from "./methods";
import type { ChaosOptions } from "./options";
import { createRandom, type Random } from "./random";
import { Injector, planFaults, type FaultCount } from "./schedule";
import { ForeignIntentsSeen, SECOND_SHOP_ID, startSecondShop, type SecondShop } from "./second-shop";
import { Operator, operatorLine, type OperatorReport } from "./operator";
import { Shopper } from "./shopper";

/**
 * One soak: start the cluster, find what it supports, let shoppers pay while
 * the seeded schedule injects faults, stop the faults, wait for convergence,
 * and hand the evidence to the checker.
 */
export interface SoakResult {
  options: ChaosOptions;
  cards: string[];
  faults: Map<string, FaultCount>;
  outcomes: Record<string, number>;
  attempts: number;
  /** Every attempt's journal entry, for the evidence printed with a violation. */
  journal: Journal;
  convergence: Convergence;
  verdict: Verdict;
  /** The shop's own audit of the soak's window, against the checker's verdict. */
  audit: AuditAgreement;
  /** Each failover: how far the standby was behind, and the write transactions that lost. */
  failovers: FailoverReport[];
  /** With `--second-shop`: its attempts, its own checker's verdict, and the cross-shop check. */
  secondShop: SecondShopResult | null;
  /** The operator's refunds (operator.ts): what it did and saw, judged against Stripe's refunds. */
  operator: OperatorReport;
  elapsedMs: number;
}

export interface SecondShopResult {
  shopId: string;
  attempts: number;
  outcomes: Record<string, number>;
  journal: Journal;
  convergence: Convergence;
  /** The same checker, on the second shop's share of the ledger and its own database (no webhooks: invariant 5 n/a). */
  verdict: Verdict;
  crossShop: CrossShopVerdict;
}

/** Attempts a shopper makes before leaving (the next one is a new customer). */
const ATTEMPTS_PER_SHOPPER = 8;

export async function runSoak(options: ChaosOptions, log: (line: string) => void): Promise<SoakResult> {
  const started = Date.now();
  const random = createRandom(options.seed);
  const cluster = await startCluster(options, log);
  let second: SecondShop | null = null;
  try {
    if (options.secondShop) second = await startSecondShop(options, cluster, log);
    const isSecondShops = (pi: { metadata: Record<string, string> }) => pi.metadata.shop === SECOND_SHOP_ID;
    const emulator = new EmulatorClient(cluster.emulator.url);
    // Deliveries to the app through the proxy, with quick retries, enough to outlast a killed instance or a failover.
    await emulator.webhooks({
      url: `${cluster.proxy.url}${WEBHOOK_PATH}`,
      secret: WEBHOOK_SECRET,
      retryBaseMs: 250,
      maxAttempts: 10,
      timeoutMs: 5_000,
    });
    const cards = paymentKinds(CARD_KINDS, options.payWith);
    const kinds = FAULT_KINDS;
    log(`cards      ${cards.map((c) => c.name).join(", ")}`);
    log(`faults     ${kinds.map((k) => k.name).join(", ")}`);
    log(
      `paying     with ${options.payWith === "confirmation-token" ? "ConfirmationTokens made by Stripe.js from each typed card" : "test payment methods (an API client)"}`,
    );
    log(`webhooks   on · seed ${options.seed} · ${options.attempts} attempts · ${options.faultRounds} fault rounds`);

    const products = (await (await fetch(`${cluster.proxy.url}/api/products`)).json()) as Array<{
      sku: string;
      priceCents: number;
    }>;
    const journal = new Journal();
    // The emulator's own key pair: a browser's token lands in the shop's account (sk_test_emulator).
    const stripeJs = { url: cluster.emulator.url, publishableKey: "pk_test_emulator" };
    const restarts: Array<Promise<unknown>> = [];
    const injector = new Injector(
      planFaults(kinds, options.faultRounds, options.attempts, random.fork("schedule")),
      {
        cluster,
        emulator,
        random: random.fork("faults"),
        journal,
        background: (work) => restarts.push(work.catch((err) => log(`restart failed: ${err}`))),
      },
      (kind, err) => log(`fault ${kind} failed: ${err instanceof Error ? err.message : String(err)}`),
    );

    let startedAttempts = 0;
    const deadline = options.durationSeconds === null ? Infinity : started + options.durationSeconds * 1000;
    const nextAttempt = async (): Promise<number | null> => {
      for (;;) {
        if (startedAttempts >= options.attempts || Date.now() > deadline) return null;
        if (injector.allows(startedAttempts)) return startedAttempts++;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const worker = async (w: number) => {
      const own = random.fork(`shopper-${w}`);
      let shopper: Shopper | null = null;
      let made = 0;
      for (let n = await nextAttempt(); n !== null; n = await nextAttempt()) {
        if (!shopper || made >= ATTEMPTS_PER_SHOPPER) {
          shopper = new Shopper(
            cluster.proxy.url,
            journal,
            own.fork(`customer-${n}`),
            options.doublePressPercent,
            stripeJs,
            options.payWith,
          );
          await shopper.browser.arrive();
          made = 0;
        }
        const card = own.weighted(cards);
        const { items, amountCents } = drawCart(own, products);
        made += 1;
        const settled = await shopper.checkout(items, card, amountCents);
        if (!settled) shopper = null; // walked away undecided: the next attempt is another customer
      }
    };
    const seen = { soak: new ForeignIntentsSeen(), second: new ForeignIntentsSeen() };
    const soakInstanceUrls = () => cluster.instances.filter((i) => i.process).map((i) => `http://127.0.0.1:${i.port}`);
    const lookForForeignIntents = () =>
      second ? Promise.all([seen.soak.look(soakInstanceUrls()), seen.second.look([second.url])]) : Promise.resolve();
    if (second) {
      second.startTraffic(random.fork("second-shop"), products, stripeJs);
      log(`second     shop paying beside the soak's on the same account`);
    }
    const looking = setInterval(() => void lookForForeignIntents(), 2_000);
    const progress = setInterval(() => {
      log(
        `progress   ${journal.finished}/${options.attempts} attempts done · ${injector.total} faults injected · ${shownContradictions(journal)} violations so far (a shopper told two different things) · ${Math.round((Date.now() - started) / 1000)} s` +
          (second ? ` · second shop ${second.journal.finished} attempts` : ""),
      );
    }, 5_000);
    const injecting = injector.run(() => startedAttempts);
    const clock = startStripeClock(emulator, log);
    const operator = new Operator(cluster.proxy.url, journal, random.fork("operator"));
    const operating = operator.run();
    await Promise.all(Array.from({ length: options.concurrency }, (_, w) => worker(w)));
    // The operator's last refunds still meet the faults; each ends with a final answer (or its deadline).
    await operator.stop();
    await operating;
    injector.stop();
    await injecting;
    await second?.stopTraffic();
    clearInterval(progress);

    log(`faults     stopped after ${journal.attempts.size} attempts; restoring every instance and the database`);
    log(`clock      Stripe's clock moved past every debit: ${await clock.settleAll()} decided`);
    if (options.payWith === "confirmation-token") log(`methods    ${methodsLine(journal)}`);
    const ctx = { cluster, emulator, random, journal, background: () => undefined };
    for (const kind of kinds) await kind.disarm?.(ctx);
    await Promise.all(restarts);
    for (const instance of cluster.instances) if (!instance.process) await cluster.restart(instance);
    const [convergence, secondConvergence] = await Promise.all([
      awaitConvergence({
        databaseUrl: cluster.database.url,
        timeoutMs: options.convergeTimeoutSeconds * 1000,
        webhooksPending: () => emulator.webhookStat("pending"),
        charges: () => standingCharges(cluster.emulator.url, (pi) => !isSecondShops(pi)),
      }),
      second &&
        awaitConvergence({
          databaseUrl: second.databaseUrl,
          timeoutMs: options.convergeTimeoutSeconds * 1000,
          webhooksPending: async () => 0, // it has none
          charges: () => standingCharges(cluster.emulator.url, isSecondShops),
        }),
    ]);
    log(`converged  ${convergedLine(convergence, options)}`);
    if (secondConvergence) log(`converged  the second shop ${convergedLine(secondConvergence, options)}`);

    const everything = await gatherEvidence({
      emulatorUrl: cluster.emulator.url,
      databaseUrl: cluster.database.url,
      journal,
    });
    // The soak's shop's checker judges the soak's shop: the second shop's intents are the second shop's to account for.
    const evidence = second ? withoutShop(everything, SECOND_SHOP_ID) : everything;
    const verdict = check(evidence);
    const operatorReport = operator.judge(evidence.refunds);
    log(`operator   ${operatorLine(operatorReport)}`);
    const audit = await auditAgreement(
      { databaseUrl: cluster.database.url, emulatorUrl: cluster.emulator.url, from: new Date(started - 60_000) },
      verdict,
    );
    log(
      audit.disagreement === null
        ? `audit      agrees with the checker: ${audit.doubleCharged.audit.length} double charges (the same attempts), ${audit.moneyFindings} money findings, ${audit.report.findings.length} findings in all${findingKinds(audit.report.findings)}`
        : `audit      DISAGREES with the checker: ${audit.disagreement}`,
    );
    let secondShop: SecondShopResult | null = null;
    if (second && secondConvergence) {
      await lookForForeignIntents();
      clearInterval(looking);
      const own = await gatherEvidence({
        emulatorUrl: cluster.emulator.url,
        databaseUrl: second.databaseUrl,
        journal: second.journal,
      });
      const crossShop = checkCrossShop({
        soak: { shopId: SHOP_ID, orders: everything.orders, foreignIntentsSeen: seen.soak.total },
        second: { shopId: SECOND_SHOP_ID, orders: own.orders, foreignIntentsSeen: seen.second.total },
        intents: everything.intents,
        refunds: everything.refunds,
        secondShopWrites: second.recorder.writes,
      });
      const ownVerdict = check({ ...onlyShop(own, SECOND_SHOP_ID), events: null });
      ownVerdict.notApplicable.webhook_events_once = "no webhooks: the account delivers to the soak's shop";
      secondShop = {
        shopId: SECOND_SHOP_ID,
        attempts: second.journal.attempts.size,
        outcomes: outcomesOf(second.journal),
        journal: second.journal,
        convergence: secondConvergence,
        verdict: ownVerdict,
        crossShop,
      };
      const f = crossShop.figures;
      log(
        `second     shop: ${secondShop.attempts} attempts, ${f.secondShopPayments} standing payments of ${f.secondShopIntents} intents; ` +
          `${secondShop.verdict.violations.length} violations of its own; ${crossShop.findings.length} cross-shop findings; ` +
          `foreign intents seen: the soak's shop ${f.foreignIntentsSeen.soak}, the second shop ${f.foreignIntentsSeen.second}`,
      );
    }
    clearInterval(looking);
    return {
      options,
      cards: cards.map((c) => c.name),
      faults: injector.counts,
      outcomes: outcomesOf(journal),
      attempts: journal.attempts.size,
      journal,
      convergence,
      verdict,
      audit,
      failovers: [...cluster.database.failovers],
      secondShop,
      operator: operatorReport,
      elapsedMs: Date.now() - started,
    };
  } finally {
    await second?.stop();
    await cluster.stop();
  }
}

function convergedLine(convergence: Convergence, options: ChaosOptions): string {
  return convergence.converged
    ? `in ${(convergence.ms / 1000).toFixed(1)} s`
    : `NOT within ${options.convergeTimeoutSeconds} s: ${JSON.stringify(convergence.open)}`;
}

function outcomesOf(journal: Journal): Record<string, number> {
  const outcomes: Record<string, number> = {};
  for (const attempt of journal.attempts.values()) outcomes[attempt.outcome] = (outcomes[attempt.outcome] ?? 0) + 1;
  return outcomes;
}

/** 1–3 lines of 1–3 items. */
function drawCart(random: Random, products: Array<{ sku: string; priceCents: number }>) {
  const lines = random
    .shuffle(products)
    .slice(0, random.int(1, 3))
    .map((p) => ({ sku: p.sku, quantity: random.int(1, 3), priceCents: p.priceCents }));
  return {
    items: lines.map(({ sku, quantity }) => ({ sku, quantity })),
    amountCents: lines.reduce((sum, l) => sum + l.quantity * l.priceCents, 0),
  };
}

/** A cheap running check for the progress line: attempts whose shopper was told two different things. */
function shownContradictions(journal: Journal): number {
  let n = 0;
  for (const attempt of journal.attempts.values()) {
    const finals = new Set(
      attempt.answers
        .filter((a) => a.method === "POST" && (a.status === 201 || a.status === 402))
        .map((a) => `${a.status}:${(a.body as { paymentIntentId?: string } | null)?.paymentIntentId ?? ""}`),
    );
    if (finals.size > 1) n++;
  }
  return n;
}

/** The audit's findings by kind (" (refund_failed 1)"), so a soak's log says what the audit saw. */
function findingKinds(findings: ReadonlyArray<{ kind: string }>): string {
  const counts = new Map<string, number>();
  for (const { kind } of findings) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts.size === 0 ? "" : ` (${[...counts].map(([kind, n]) => `${kind} ${n}`).join(", ")})`;
}
