import { admissionGate } from "@/lib/abuse/admission";
import { randomUUID } from "node:crypto";
import { CHECKOUT_ENDPOINT } from "@/lib/checkout/request";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { gateWithBudget, simulateAbuse, type AbuseTraffic } from "../lib/abuse-simulation";
import { openDb } from "../lib/database";
import { goal, type Scenario } from "../lib/scenario";

/**
 * The provider budget against abuse (docs/decisions/0020-a-budget-a-few-cannot-drain.md),
 * at the default 10 calls a second:
 *
 * - 60 concurrent fresh keys from one address through the shop's own gate and
 *   claim on the bench database, each claimed key's create sent to the emulator
 *   (an account of the scenario's own): the creates counted at its ledger;
 * - an honest shopper's fresh keys, one every 10 s, beside 10 and 40 abusive
 *   addresses at their limits (a fresh key each second, or every 50 ms: a
 *   refusal costs them nothing), through the gate on a clock of its own:
 *   16 minutes of traffic in seconds, the same every run.
 */
const BUDGET = 10;
const CONCURRENT = 60;

export const abuse: Scenario = {
  name: "abuse",
  title: "provider budget under abuse",
  async run(ctx) {
    const creates = await concurrentFreshKeys(ctx.databaseUrl, ctx.emulatorUrl);
    const figures: Record<string, number> = {
      [`creates at the provider of ${CONCURRENT} concurrent fresh keys`]: creates,
    };
    const goals = [goal(`creates of ${CONCURRENT} concurrent keys ÷ budget a second`, creates / BUDGET, "<=", 1)];
    for (const abusers of [10, 40])
      for (const abuserEveryMs of [1000, 50]) {
        const traffic: AbuseTraffic = {
          abusers,
          abuserEveryMs,
          honestEveryMs: 10_000,
          honestKeys: 100,
          perSecond: BUDGET,
        };
        const outcome = simulateAbuse(traffic);
        const what = `${abusers} abusers every ${abuserEveryMs} ms`;
        figures[`honest keys admitted, ${what} (%)`] = Math.round(outcome.honestShare * 1000) / 10;
        figures[`most calls in a second, ${what}`] = outcome.maxPerSecond;
        goals.push(goal(`honest admitted ÷ sent, ${what}`, outcome.honestShare, ">=", 0.95));
      }
    return {
      measures: {},
      figures,
      goals,
      notes: [
        `${creates} of ${CONCURRENT} concurrent fresh keys from one address reached the provider (budget ${BUDGET} a second)`,
      ],
    };
  },
};

/** Admission, claim and create as concurrent handlers make them; the creates counted at the emulator's ledger. */
async function concurrentFreshKeys(databaseUrl: string, emulatorUrl: string): Promise<number> {
  const db = openDb(databaseUrl);
  // A key of the scenario's own, given an account (and a ledger) of its own by a reset that names it.
  const secretKey = `sk_test_abuse_${Date.now()}`;
  const reset = await fetch(`${emulatorUrl}/_emulator/reset`, {
    method: "POST",
    headers: { authorization: `Bearer ${secretKey}` },
  });
  if (!reset.ok) throw new Error(`the emulator's reset answered ${reset.status}`);
  const stripe = createStripeClient({ secretKey, apiBase: emulatorUrl, maxNetworkRetries: 0 });
  const gate = gateWithBudget(BUDGET);
  try {
    await Promise.all(
      Array.from({ length: CONCURRENT }, async () => {
        const customerId = randomUUID();
        const admission = gate.admission(customerId, "203.0.113.60");
        const scope = { subjectId: customerId, endpoint: CHECKOUT_ENDPOINT, key: randomUUID() };
        const claim = await db.engine.claim(scope, "a".repeat(64), admissionGate(scope, admission));
        if (claim.kind !== "claimed") return admission.giveBack();
        await stripe.paymentIntents.create({
          amount: 1000,
          currency: "usd",
          payment_method: "pm_card_visa",
          confirm: true,
        });
      }),
    );
    let created = 0;
    for await (const _ of stripe.paymentIntents.list({ limit: 100 })) created++;
    return created;
  } finally {
    await db.close();
  }
}
