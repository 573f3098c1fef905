import { beforeEach, describe, expect, it } from "vitest";
import {
  backgroundRefusals,
  clearRefusals,
  currentRefusal,
  describeRefusal,
  noteProviderAnswer,
  REFUSAL_LOG_INTERVAL_MS,
  type ProviderRefusal,
} from "./provider-refusals";

const reports: Array<[ProviderRefusal, boolean]> = [];
const report = (refusal: ProviderRefusal, alarm: boolean) => reports.push([refusal, alarm]);
beforeEach(() => {
  clearRefusals();
  reports.length = 0;
});

describe("Stripe's refusals of the shop's key", () => {
  it("stand until the refused endpoint answers 2xx; another endpoint's success does not lift them", () => {
    noteProviderAnswer({ status: 403, path: "/v1/payment_intents/search?query=x" }, report, 1_000);
    expect(currentRefusal()).toEqual({ status: 403, path: "/v1/payment_intents/search", at: 1_000 });
    noteProviderAnswer({ status: 200, path: "/v1/refunds" }, report, 2_000);
    noteProviderAnswer({ status: 402, path: "/v1/payment_intents/search" }, report, 2_500); // not a refusal: it stands
    expect(currentRefusal()).toMatchObject({ status: 403, path: "/v1/payment_intents/search" });
    noteProviderAnswer({ status: 200, path: "/v1/payment_intents/search" }, report, 3_000);
    expect(currentRefusal()).toBeNull();
  });

  it("off the payment path (events, refunds) are alarms: payments stay ready", () => {
    noteProviderAnswer({ status: 403, path: "/v1/events?limit=100", method: "GET" }, report, 1_000);
    noteProviderAnswer({ status: 403, path: "/v1/refunds", method: "POST" }, report, 1_001);
    expect(currentRefusal()).toBeNull();
    expect(backgroundRefusals().map((r) => r.path)).toEqual(["/v1/events", "/v1/refunds"]);
    expect(describeRefusal(backgroundRefusals()[0]!)).toMatch(/403 on \/v1\/events, the events catch-up.*Events: read/);
    expect(describeRefusal(backgroundRefusals()[1]!)).toMatch(/Refunds: write/);
    // The key itself refused is a payment refusal wherever it happened.
    noteProviderAnswer({ status: 401, path: "/v1/events" }, report, 2_000);
    expect(currentRefusal()).toMatchObject({ status: 401, path: "/v1/events" });
  });

  it("stand for the method refused: a read's success does not lift a refused write of the same endpoint", () => {
    // A restricted key with PaymentIntents: read only. The health probe lists intents; the checkout creates them.
    noteProviderAnswer({ status: 403, path: "/v1/payment_intents", method: "POST" }, report, 1_000);
    noteProviderAnswer({ status: 200, path: "/v1/payment_intents?limit=1", method: "GET" }, report, 2_000);
    expect(currentRefusal()).toEqual({ status: 403, path: "/v1/payment_intents", method: "POST", at: 1_000 });
    expect(describeRefusal(currentRefusal()!)).toMatch(/PaymentIntents: write/);
    noteProviderAnswer({ status: 200, path: "/v1/payment_intents", method: "post" }, report, 3_000);
    expect(currentRefusal()).toBeNull();
  });

  it("tell ids apart from endpoints: a refusal for one intent is lifted by a success for another", () => {
    noteProviderAnswer({ status: 401, path: "/v1/payment_intents/pi_123/cancel" }, report, 1_000);
    noteProviderAnswer({ status: 200, path: "/v1/payment_intents/pi_456/cancel" }, report, 2_000);
    expect(currentRefusal()).toBeNull();
  });

  it("keep resources apart: a read of an intent does not lift a refused read of a ConfirmationToken", () => {
    noteProviderAnswer({ status: 403, method: "GET", path: "/v1/confirmation_tokens/ctoken_1Nx9" }, report, 1_000);
    noteProviderAnswer({ status: 200, method: "GET", path: "/v1/payment_intents/pi_3Qa7" }, report, 2_000);
    noteProviderAnswer({ status: 200, method: "GET", path: "/v1/payment_methods/pm_1Zz" }, report, 3_000);
    expect(currentRefusal()).toMatchObject({ status: 403, path: "/v1/confirmation_tokens/ctoken_1Nx9" });
    noteProviderAnswer({ status: 200, method: "GET", path: "/v1/confirmation_tokens/ctoken_2Ab" }, report, 4_000);
    expect(currentRefusal()).toBeNull();
  });

  it("are each reported, raising the alarm at most once a minute", () => {
    for (let i = 0; i < 5; i++) noteProviderAnswer({ status: 401, path: "/v1/payment_intents" }, report, 1_000 + i);
    noteProviderAnswer({ status: 401, path: "/v1/payment_intents" }, report, 1_000 + REFUSAL_LOG_INTERVAL_MS);
    expect(reports.map(([, alarm]) => alarm)).toEqual([true, false, false, false, false, true]);
  });

  it("say in one line what to change", () => {
    expect(describeRefusal({ status: 401, path: "/v1/payment_intents", at: 0 })).toMatch(/401.*STRIPE_SECRET_KEY/);
    expect(describeRefusal({ status: 403, path: "/v1/refunds", at: 0 })).toMatch(/403 on \/v1\/refunds.*README/);
  });
});
