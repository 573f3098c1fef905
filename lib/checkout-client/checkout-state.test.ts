import { describe, expect, it } from "vitest";
import { ApiError } from "./api";
import { CheckoutFailure, sessionChanged } from "./checkout-failure";
import {
  immediateOutcome,
  isDefinitive,
  locksCart,
  outcomeAfterFailure,
  refusalFrom,
  stateFromCheckFailure,
  stateFromStatus,
} from "./checkout-state";

const paid = { orderId: "o1", status: "paid", amountCents: 2500, currency: "usd", paymentIntentId: "pi_1" };
const http = (status: number, code = "x") =>
  new CheckoutFailure({ kind: "http", status, code, retryAfterMs: undefined }, "m");

describe("the truth after retries run out", () => {
  it("shows a completed attempt as paid, with its order", () => {
    expect(stateFromStatus({ status: "completed", response: { statusCode: 201, body: paid } })).toEqual({
      kind: "paid",
      order: paid,
    });
  });

  it("shows a failed attempt as declined, with the reason", () => {
    const body = { error: "card_declined", message: "Your card was declined.", declineCode: "generic_decline" };
    expect(stateFromStatus({ status: "failed", response: { statusCode: 402, body } })).toEqual({
      kind: "declined",
      error: "card_declined",
      declineCode: "generic_decline",
      message: "Your card was declined.",
    });
  });

  it("shows a 3-D Secure attempt waiting for the shopper as authenticating, with the bank's page, and keeps it open", () => {
    const body = {
      status: "requires_action",
      orderId: "o1",
      nextAction: { type: "redirect", url: "http://bank.test/3ds" },
    };
    const state = stateFromStatus({ status: "in_progress", response: { statusCode: 202, body } });
    expect(state).toEqual({ kind: "authenticating", url: "http://bank.test/3ds" });
    expect(isDefinitive(state)).toBe(false);
  });

  it("shows an attempt waiting for the bank in the page as waiting for the shopper to open it again: no window is open", () => {
    const body = {
      status: "requires_action",
      orderId: "o1",
      nextAction: { type: "use_stripe_sdk", clientSecret: "pi_1_secret_abc" },
    };
    const state = stateFromStatus({ status: "in_progress", response: { statusCode: 202, body } });
    expect(state).toEqual({ kind: "authentication_pending" });
    expect(isDefinitive(state)).toBe(false);
  });

  it("shows a failed authentication as a failure with its error, after which the next press is a new attempt", () => {
    const body = {
      error: "authentication_failed",
      code: "payment_intent_authentication_failure",
      message: "We are unable to authenticate.",
      orderId: "o1",
    };
    const state = stateFromStatus({ status: "failed", response: { statusCode: 402, body } });
    expect(state).toEqual({
      kind: "declined",
      error: "authentication_failed",
      declineCode: "payment_intent_authentication_failure",
      message: "We are unable to authenticate.",
    });
    expect(isDefinitive(state)).toBe(true);
  });

  it("shows an attempt still in progress as processing, never as a new attempt", () => {
    expect(stateFromStatus({ status: "in_progress" })).toEqual({ kind: "processing" });
    expect(isDefinitive({ kind: "processing" })).toBe(false);
    expect(locksCart({ kind: "processing" })).toBe(true);
  });

  it("tells an unknown attempt (404) from an unreachable shop", () => {
    expect(stateFromCheckFailure(new ApiError(404, "not_found", "no"))).toEqual({ kind: "not_recorded" });
    expect(stateFromCheckFailure(new TypeError("Failed to fetch"))).toEqual({ kind: "unreachable" });
    expect(locksCart({ kind: "not_recorded" })).toBe(false);
  });
});

describe("refusals", () => {
  it("closes the attempt on 400, 403 and 422 with a way forward", () => {
    for (const status of [400, 403, 422]) {
      const state = refusalFrom(http(status));
      expect(state?.kind).toBe("rejected");
      expect(isDefinitive(state!)).toBe(true);
    }
    expect(refusalFrom(http(422, "idempotency_key_reuse"))).toMatchObject({
      message: expect.stringContaining("no longer matches your cart"),
    });
  });

  it("leaves retryable and unknown failures to the shop's record", () => {
    expect(refusalFrom(http(409))).toBeNull();
    expect(refusalFrom(http(500))).toBeNull();
    expect(refusalFrom(CheckoutFailure.network(new TypeError("x")))).toBeNull();
  });
});

describe("a session lost in the middle of an attempt (401)", () => {
  it("keeps the attempt open and locked: it may have charged under the session that ended", () => {
    const state = immediateOutcome(http(401, "unauthenticated"));
    expect(state).toEqual({ kind: "session_lost" });
    expect(refusalFrom(http(401, "unauthenticated"))).toBeNull();
    expect(isDefinitive(state!)).toBe(false);
    expect(locksCart(state!)).toBe(true);
  });

  it("is the same when the page finds another session before sending", () => {
    expect(immediateOutcome(sessionChanged())).toEqual({ kind: "session_lost" });
  });

  it("does not ask the shop under a new session, where the key is unknown", async () => {
    const state = await outcomeAfterFailure(http(401, "unauthenticated"), () =>
      Promise.reject(new Error("must not be asked")),
    );
    expect(state).toEqual({ kind: "session_lost" });
  });

  it("answers a check refused with 401 as the lost session, not as an unreachable shop", () => {
    expect(stateFromCheckFailure(new ApiError(401, "unauthenticated", "no"))).toEqual({ kind: "session_lost" });
  });
});

describe("an attempt the shop may have forgotten (old, or made under a session that ended)", () => {
  it("shows an unknown key as no record, closes the attempt and unlocks the cart", () => {
    const state = stateFromCheckFailure(new ApiError(404, "not_found", "no"), { mayBeForgotten: true });
    expect(state).toEqual({ kind: "no_record" });
    expect(isDefinitive(state)).toBe(true);
    expect(locksCart(state)).toBe(false);
  });

  it("still shows what the shop did record", async () => {
    const state = await outcomeAfterFailure(
      null,
      async () => ({ status: "completed", response: { statusCode: 201, body: paid } }),
      { mayBeForgotten: true },
    );
    expect(state).toEqual({ kind: "paid", order: paid });
  });
});

describe("when retries run out", () => {
  const exhausted = http(409, "in_progress");

  it("asks the shop and shows what it recorded", async () => {
    const asked: string[] = [];
    const state = await outcomeAfterFailure(exhausted, async () => {
      asked.push("GET");
      return { status: "completed", response: { statusCode: 201, body: paid } };
    });
    expect(state).toEqual({ kind: "paid", order: paid });
    expect(asked).toEqual(["GET"]);
  });

  it("shows a payment still running as processing", async () => {
    expect(await outcomeAfterFailure(exhausted, async () => ({ status: "in_progress" }))).toEqual({
      kind: "processing",
    });
  });

  it("says so when the shop cannot be asked either", async () => {
    const offline = CheckoutFailure.network(new TypeError("Failed to fetch"));
    expect(await outcomeAfterFailure(offline, () => Promise.reject(new TypeError("Failed to fetch")))).toEqual({
      kind: "unreachable",
    });
  });

  it("does not ask about a refused request", async () => {
    const state = await outcomeAfterFailure(http(422, "idempotency_key_reuse"), () =>
      Promise.reject(new Error("must not be asked")),
    );
    expect(state.kind).toBe("rejected");
  });
});
