import type { QueryClient } from "@tanstack/react-query";
import { requestJson } from "@/lib/checkout-client/api";
import { createAttemptStore } from "@/lib/checkout-client/attempt-store";
import { MemoryStorage } from "@/lib/checkout-client/memory-storage";
import type { LabFaultPatch } from "@/lib/lab/fault-patch";
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

/** One lane's shopper: presses Pay when told to, and shows what its page would show. */
function laneShopper(lane: Lane, { client, runId, scenario, onView }: RunOptions) {
  // One checkout attempt per run: every press of the idempotent lane carries its key.
  const attempt = createAttemptStore(new MemoryStorage()).begin(LAB_CART);
  let presses = 0;
  let confirmed = false;
  const press = () => {
    presses += 1;
    const send = labFetch({ runId, press: presses, lane, loseFirst: scenario.loseFirstResponse && presses === 1 });
    return lane === "naive" ? naivePress(LAB_CART, send) : idempotentPress(client, attempt, send);
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
