import type { CheckoutBody } from "@/lib/checkout-client/types";
import type { LabFaultPatch } from "./fault-patch";

/**
 * The lab's scenarios. Each runs in both lanes at once, from the browser:
 * presses of Pay at the given moments, with the gateway faults it needs set on
 * the Stripe emulator for the duration of the run.
 */
export type ScenarioId =
  "double-click" | "lost-response" | "slow-gateway" | "provider-503" | "storm" | "kill-mid-charge";

export interface Scenario {
  id: ScenarioId;
  title: string;
  /** What the shopper (or the network) does, in one line. */
  summary: string;
  /** When each press of Pay happens, in ms after the start. */
  pressesAtMs: (stormSize: number) => number[];
  faults: LabFaultPatch | null;
  /** Without its faults the scenario would show nothing (otherwise they only sharpen it). */
  needsFaults: boolean;
  /** Each lane's first request goes through /api/lab/lose-response, which charges and then cuts the connection. */
  loseFirstResponse: boolean;
  /** What to look for once it has run. */
  lesson: string;
}

export const STORM = { min: 2, max: 30, default: 10 } as const;

/** The storm's size from what was typed: clamped to the allowed range, the default when not a number. */
export function stormSizeOf(input: string): number {
  const n = Number(input);
  return input.trim() !== "" && Number.isFinite(n)
    ? Math.min(STORM.max, Math.max(STORM.min, Math.round(n)))
    : STORM.default;
}

export const SCENARIOS: readonly Scenario[] = [
  {
    id: "double-click",
    title: "Double click",
    summary: "Pay pressed twice, 90 ms apart, while the gateway takes about half a second per call.",
    pressesAtMs: () => [0, 90],
    faults: { latencyMs: 500 },
    needsFaults: false,
    loseFirstResponse: false,
    lesson:
      "Naive: each press is a new payment, so the card is charged twice. Idempotent: both presses carry the same Idempotency-Key; the second is answered 409 in milliseconds, retries after Retry-After and gets the first payment's answer replayed.",
  },
  {
    id: "lost-response",
    title: "Lost response after charge",
    summary: "The card is charged, then the connection drops before the browser can read the answer.",
    pressesAtMs: () => [0],
    faults: null,
    needsFaults: false,
    loseFirstResponse: true,
    lesson:
      "The first request of each lane goes through /api/lab/lose-response: the lane's endpoint serves it in full (the card is charged), then the lab cuts the TCP connection a few bytes into the answer. Naive: the page shows an error and the shopper presses Pay again — a second charge. Idempotent: the client retries with the same key and the stored answer is replayed. (Cut before the first byte, it is worse: Chromium quietly resends the POST by itself, and the naive lane charged up to seven times.)",
  },
  {
    id: "slow-gateway",
    title: "Slow gateway",
    summary: "Every gateway call takes 4 s; the shopper presses Pay again 2 s in.",
    pressesAtMs: () => [0, 2_000],
    faults: { latencyMs: 4_000 },
    needsFaults: true,
    loseFirstResponse: false,
    lesson:
      "Naive: two presses, two charges. Idempotent: the browser gives up on a request after 5 s and retries with the same key; every duplicate is answered 409 at once while the first request is still charging, then the answer is replayed — no request waits behind a lock.",
  },
  {
    id: "provider-503",
    title: "Provider 503",
    summary: "The gateway answers 503 to its next six calls, before charging anything.",
    pressesAtMs: () => [0],
    faults: { failNext: { status: 503, times: 6 } },
    needsFaults: true,
    loseFirstResponse: false,
    lesson:
      "A 503 before anything happened charges no one — both lanes end with one charge. The difference is what is left behind: the naive lane errors out (500), leaves an order stuck unpaid and needs the shopper to press again; the idempotent lane answers 503 with Retry-After, keeps the key retakeable and its client retries by itself.",
  },
  {
    id: "storm",
    title: "Storm of duplicates",
    summary: "N presses at the same instant (the browser sends at most 6 at a time per site).",
    pressesAtMs: (n) => Array.from({ length: n }, () => 0),
    faults: { latencyMs: 300 },
    needsFaults: false,
    loseFirstResponse: false,
    lesson:
      "Naive: one charge per press. Idempotent: exactly one request wins the claim; every other one is answered 409 or replayed, whatever the count.",
  },
  {
    id: "kill-mid-charge",
    title: "Kill mid-charge",
    summary: "The app process dies (kill -9) between charging the card and recording the result.",
    pressesAtMs: () => [],
    faults: null,
    needsFaults: false,
    loseFirstResponse: false,
    lesson: "",
  },
];

/** Why the kill scenario is not a button here, and what it would show. */
export const KILL_EXPLANATION =
  "Not run from this page: npm run demo's supervisor stops everything when the app dies instead of restarting it, and the timeline lives in the app's memory. " +
  "What it would show — naive: the charge lands, the order stays unpaid, the shopper's retry charges again. " +
  "Idempotent: the dead request's claim stays in progress, so retries get 409 until the in-progress TTL passes (or the reconciler asks Stripe); " +
  "then the retry takes over the claim, finds the PaymentIntent created under the same downstream key and records that one charge. " +
  "The project's Vitest crash test does exactly this with a real SIGKILL of the server.";

/** The lab's cart, and the card its shopper pays with (Stripe's test Visa), made a ConfirmationToken per attempt. */
export const LAB_CART: { items: CheckoutBody["items"]; cardNumber: string } = {
  items: [{ sku: "tee-classic", quantity: 1 }],
  cardNumber: "4242424242424242",
};
export const LAB_CART_LABEL = "1 × Classic Tee, $25.00, Visa ending 4242";

/** Faults cleared before each run and after it: the emulator serves the whole demo. */
export const NO_FAULTS: LabFaultPatch = { latencyMs: 0, failNext: null, dropAfterCharge: 0 };
