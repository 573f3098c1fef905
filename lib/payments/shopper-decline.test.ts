import { describe, expect, it } from "vitest";
import { shopperDecline, shopperDeclineCode } from "./shopper-decline";

describe("what a shopper is told of a decline", () => {
  it.each(["fraudulent", "lost_card", "stolen_card", "pickup_card", "merchant_blacklist"])(
    "%s is told as a generic decline",
    (code) => {
      expect(shopperDecline(code, "Your card has been reported stolen.")).toEqual({
        declineCode: "generic_decline",
        message: "Your card was declined.",
      });
      expect(shopperDeclineCode(code)).toBe("generic_decline");
    },
  );

  it("anything else is told as Stripe says it", () => {
    expect(shopperDecline("insufficient_funds", "Your card has insufficient funds.")).toEqual({
      declineCode: "insufficient_funds",
      message: "Your card has insufficient funds.",
    });
    expect(shopperDeclineCode(null)).toBeNull();
    expect(shopperDeclineCode("expired_card")).toBe("expired_card");
  });
});
