import type { QueryClient } from "@tanstack/react-query";
import { requestJson } from "@/lib/checkout-client/api";
import { createAttemptStore, type CheckoutAttempt } from "@/lib/checkout-client/attempt-store";
import { CheckoutMachine } from "@/lib/checkout-client/checkout-machine";
import type { LabFaultPatch } from "@/lib/lab/fault-patch";
import { labConfirmationToken, type LabStripe } from "./card-token";
import { labFetch } from "./lab-fetch";
import type { Lane } from "@/lib/lab/lab-event";
import { LAB_CART, NO_FAULTS, type Scenario } from "@/lib/lab/scenarios";
import { idempotentPress, naivePress, type ShopperView } from "./shoppers";
import { sleep } from "@/lib/sleep";

export interface RunOptions {
  client: QueryClient;
  runId: string;
  scenario: Scenario;
  stormSize: number;
  lanes: readonly Lane[];
  /** False when the app cannot reach the emulator's faults: the run goes ahead without them. */
  faults: boolean;
  /** Where the lanes' ConfirmationTokens are made. */
  stripe: LabStripe;
  /** What each lane's shopper is looking at, as it changes. */
  onView: (lane: Lane, view: ShopperView) => void;
}

/** A naive page's only recovery is the shopper pressing Pay again, a moment after the error. */
export const NAIVE_PRESSES_AFTER_ERROR = 2;
export const PRESS_AGAIN_AFTER_MS = 1_000;

/**
 * Runs one scenario in the given lanes at once: sets the gateway's faults,
 * presses Pay in each lane on the scenario's schedule, and clears the faults
 * again however the run ends.
 */
export async function runScenario(options: RunOptions): Promise<void> {
  const faults = options.faults ? options.scenario.faults : null;
  if (faults) await setFaults({ ...NO_FAULTS, ...faults });
  try {
    const lanes = options.lanes.map((lane) => laneShopper(lane, options));
    // Lanes take turns, press by press: the browser sends at most 6 requests
    // at a time to one site, and the lane whose presses queued first would go first.
    const presses = options.scenario
      .pressesAtMs(options.stormSize)
      .flatMap((at) => lanes.map((shopper) => shopper.pressAt(at)));
    await Promise.all(presses);
  } finally {
    if (faults) await setFaults(NO_FAULTS).catch(() => undefined);
  }
}

/**
 * One lane's shopper: presses Pay when told to, and shows what its page would show.
 * The idempotent lane's page is the shop's: one ConfirmationToken and one key per
 * attempt, every press sends both. The naive lane's page, as a first
 * implementation writes it, makes a token in the Pay handler: one per press.
 */
function laneShopper(lane: Lane, { client, runId, scenario, stripe, onView }: RunOptions) {
  const token = () => labConfirmationToken(stripe, LAB_CART.cardNumber);
  // One checkout attempt per run, begun at the first press: every later press joins it.
  const store = createAttemptStore();
  const machine = new CheckoutMachine({ client, store });
  let attempt: Promise<CheckoutAttempt> | null = null;
  const begin = () =>
    (attempt ??= token().then((confirmationToken) => store.begin({ items: LAB_CART.items, confirmationToken })));
  let presses = 0;
  let confirmed = false;
  const press = async (): Promise<ShopperView> => {
    presses += 1;
    const send = labFetch({ runId, press: presses, lane, loseFirst: scenario.loseFirstResponse && presses === 1 });
    try {
      if (lane === "naive") return naivePress({ items: LAB_CART.items, confirmationToken: await token() }, send);
      return idempotentPress(machine, await begin(), send);
    } catch (err) {
      return { kind: "error", detail: err instanceof Error ? err.message : String(err) };
    }
  };
  const show = (view: ShopperView) => {
    // The first confirmation wins: the page has moved on to it, later answers land nowhere.
    if (confirmed) return;
    confirmed = view.kind === "paid";
    onView(lane, view);
  };
  return {
    async pressAt(at: number): Promise<void> {
      await sleep(at);
      let view = await press();
      show(view);
      for (
        let again = 0;
        lane === "naive" && view.kind === "error" && !confirmed && again < NAIVE_PRESSES_AFTER_ERROR;
        again++
      ) {
        await sleep(PRESS_AGAIN_AFTER_MS);
        view = await press();
        show(view);
      }
    },
  };
}

async function setFaults(patch: LabFaultPatch): Promise<void> {
  await requestJson("/api/lab/faults", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(patch),
  });
}
