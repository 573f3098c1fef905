import { describe, expect, it } from "vitest";
import { CheckoutFailure } from "./checkout-failure";
import { checkoutRetryOptions } from "./retry-options";

const http = (status: number, retryAfterMs?: number) =>
  new CheckoutFailure({ kind: "http", status, code: "x", retryAfterMs }, `HTTP ${status}`);

describe("checkout retry options", () => {
  it("retries 409, 429, 503 and network errors", () => {
    const { retry } = checkoutRetryOptions(() => 0);
    expect(retry(0, http(429))).toBe(true);
    expect(retry(0, http(409))).toBe(true);
    expect(retry(0, http(503))).toBe(true);
    expect(retry(0, CheckoutFailure.network(new TypeError("Failed to fetch")))).toBe(true);
    expect(retry(0, CheckoutFailure.network(new DOMException("signal timed out", "TimeoutError")))).toBe(true);
  });

  it("never retries 400, 401, 402, 403 or 422, nor errors it does not know", () => {
    const { retry } = checkoutRetryOptions(() => 0);
    for (const status of [400, 401, 402, 403, 422]) expect(retry(0, http(status))).toBe(false);
    expect(retry(0, new Error("bug"))).toBe(false);
  });

  it("sleeps exactly the wait it checked against the budget, jitter included", () => {
    const randoms = [0.1, 0.9];
    const { retry, retryDelay } = checkoutRetryOptions(
      () => 0,
      () => randoms.shift() ?? 0.5,
    );
    const error = http(503);
    // TanStack Query calls retryDelay first, then retry, for the same failure.
    const delay = retryDelay(0, error);
    expect(retry(0, error)).toBe(true);
    expect(retryDelay(0, error)).toBe(delay);
    expect(delay).toBe(420);
  });

  it("numbers retries from TanStack's failure count and honours Retry-After", () => {
    const { retryDelay } = checkoutRetryOptions(
      () => 0,
      () => 0.999999,
    );
    expect(retryDelay(2, http(503))).toBe(6000);
    expect(retryDelay(0, http(409, 2000))).toBe(2000);
    expect(retryDelay(0, http(429, 3000))).toBe(3000);
  });

  it("stops once the 60 s budget is spent", () => {
    let elapsed = 10_000;
    const { retry } = checkoutRetryOptions(
      () => elapsed,
      () => 0,
    );
    expect(retry(3, http(409))).toBe(true);
    elapsed = 59_900;
    expect(retry(4, http(409))).toBe(false);
  });
});
