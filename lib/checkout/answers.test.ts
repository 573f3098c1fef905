import { describe, expect, it } from "vitest";
import { readCheckoutAnswer } from "./answers";

describe("the stored answers' schema", () => {
  it("reads each answer by its status, and refuses a body of another shape or status", () => {
    const paid = { orderId: "o1", status: "paid", amountCents: 2500, currency: "usd", paymentIntentId: "pi_1" };
    expect(readCheckoutAnswer(201, paid)).toEqual(paid);
    const action = { status: "requires_action", orderId: "o1", nextAction: { type: "redirect", url: "https://x" } };
    expect(readCheckoutAnswer(202, action)).toEqual(action);
    const declined = { error: "card_declined", declineCode: "generic_decline", message: "Declined", orderId: "o1" };
    expect(readCheckoutAnswer(402, declined)).toEqual(declined);
    const failed = { error: "authentication_failed", message: "Failed", orderId: null };
    expect(readCheckoutAnswer(402, failed)).toEqual(failed);

    expect(readCheckoutAnswer(201, { ...paid, amountCents: "2500" })).toBeNull();
    expect(readCheckoutAnswer(202, { ...action, nextAction: { type: "use_stripe_sdk" } })).toBeNull();
    expect(readCheckoutAnswer(409, paid)).toBeNull();
  });
});
