import { sendUntilAnswered, type Answer } from "@checkout/idempotency/client";
import { Browser, sleep } from "./http-shopper";
import type { Journal } from "./journal";
import type { Random } from "./random";

/**
 * The "second tab" fault: one shopper, one checkout on the server, and two
 * independent tabs (each its own attempt store, so each its own key)
 * pressing Pay at the same moment. The shop must take one payment and answer
 * the other tab `409 checkout_has_payment` with the paying attempt's key,
 * which that tab then follows. Seen when that 409 arrived.
 */
export async function secondTab(appUrl: string, journal: Journal, random: Random): Promise<boolean> {
  const browser = new Browser(appUrl, journal);
  await browser.arrive();
  const checkout = await openCheckout(browser);
  if (!checkout) return false;
  const bodyJson = JSON.stringify({ checkoutId: checkout.id, paymentMethod: "pm_card_visa" });
  const tabs = [random.uuid(), random.uuid()].map((key) => {
    journal
      .open({
        id: key,
        customerId: browser.customerId,
        card: "visa",
        credential: "pm_card_visa",
        amountCents: checkout.amountCents,
      })
      .behaviours.push("second_tab");
    return key;
  });
  const answers = await Promise.all(
    tabs.map((key) =>
      sendUntilAnswered(
        { url: "/api/checkout", key, bodyJson },
        { fetch: browser.fetchFor(key), random: () => random.next() },
      ).catch(() => null),
    ),
  );
  let led = false;
  for (const [i, answer] of answers.entries()) {
    const log = journal.attempts.get(tabs[i]!)!;
    log.outcome = outcomeOf(answer);
    const payer = ledTo(answer);
    if (!payer) continue;
    led = true;
    // The led tab follows the paying attempt: its reads are that attempt's, journaled as such.
    log.outcome = `led_to_payment:${await follow(browser, payer)}`;
  }
  return led;
}

async function openCheckout(browser: Browser): Promise<{ id: string; amountCents: number } | null> {
  const send = browser.fetchFor("second-tab-checkout");
  for (let tries = 0; tries < 20; tries++) {
    const response = await send("/api/checkouts", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ items: [{ sku: "mug-enamel", quantity: 1 }] }),
      signal: AbortSignal.timeout(5_000),
    }).catch(() => null);
    if (response?.status === 201) return (await response.json()) as { id: string; amountCents: number };
    await sleep(500);
  }
  return null;
}

function ledTo(answer: Answer | null): string | null {
  const body = answer?.body as { error?: unknown; key?: unknown } | null | undefined;
  return answer?.status === 409 && body?.error === "checkout_has_payment" && typeof body.key === "string"
    ? body.key
    : null;
}

function outcomeOf(answer: Answer | null): string {
  if (!answer) return "unreachable";
  if (answer.status === 201) return "paid";
  const error = (answer.body as { error?: unknown } | null)?.error;
  return typeof error === "string" ? error : `http_${answer.status}`;
}

/** GET /api/checkout/{key} until the paying attempt has an answer (or 30 tries). */
async function follow(browser: Browser, key: string): Promise<string> {
  const read = browser.fetchFor(key);
  for (let tries = 0; tries < 30; tries++) {
    const response = await read(`/api/checkout/${key}`, { signal: AbortSignal.timeout(5_000) }).catch(() => null);
    const state = (await response?.json().catch(() => null)) as { response?: { statusCode?: number } } | null;
    const status = state?.response?.statusCode;
    if (status === 201) return "paid";
    if (status === 402) return "declined";
    await sleep(500);
  }
  return "unknown";
}
