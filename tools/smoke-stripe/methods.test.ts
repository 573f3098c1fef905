import { describe, expect, it } from "vitest";
import { eurOnly, typeNotEnabled } from "./methods";
import type { Answer } from "./shop";

const answer = (status: number, body: Record<string, unknown>): Answer => ({
  status,
  replayed: false,
  text: JSON.stringify(body),
  body,
});

describe("npm run smoke:stripe's SEPA and iDEAL journeys are skipped, saying why", () => {
  it("at Stripe itself, for a shop that does not price in EUR; never against the emulator", () => {
    expect(eurOnly(true, "usd", "iDEAL")).toEqual({
      outcome: "skipped",
      detail: "iDEAL takes EUR only at Stripe; this shop prices in usd",
    });
    expect(eurOnly(true, "eur", "iDEAL")).toBeNull();
    expect(eurOnly(false, "usd", "iDEAL")).toBeNull();
  });

  it("when the shop refuses the type at paymentMethodType, and only then", () => {
    const refused = answer(400, {
      error: "invalid_request",
      issues: [{ path: ["paymentMethodType"], message: "not taken" }],
    });
    expect(typeNotEnabled(refused, "ideal")).toEqual({
      outcome: "skipped",
      detail: "the shop does not take ideal: add it to its PAYMENT_METHOD_TYPES",
    });
    expect(
      typeNotEnabled(answer(400, { error: "invalid_request", issues: [{ path: ["items"] }] }), "ideal"),
    ).toBeNull();
    expect(typeNotEnabled(answer(202, { status: "requires_action" }), "ideal")).toBeNull();
  });
});
