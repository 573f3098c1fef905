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
  it("for a shop that does not price in EUR, at Stripe and at the emulator alike, saying what to set", () => {
    expect(eurOnly("usd", "iDEAL")).toEqual({
      outcome: "skipped",
      detail: "iDEAL takes EUR only; this shop prices in usd: run it with SHOP_CURRENCY=eur",
    });
    expect(eurOnly("eur", "iDEAL")).toBeNull();
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
