import { describe, expect, it } from "vitest";
import { parseSmokeArgs } from "./options";

describe("npm run smoke:stripe's arguments and environment", () => {
  it("runs against the shop's origin, with Stripe's record checked only when given a key", () => {
    expect(parseSmokeArgs(["--app", "http://localhost:3000/anything"], {})).toEqual({
      kind: "run",
      options: { app: new URL("http://localhost:3000"), refundWaitMs: 180_000, stepTimeoutMs: 30_000, stripe: null },
    });
    const withKey = parseSmokeArgs(["--app", "https://shop.example", "--refund-wait", "30"], {
      STRIPE_SECRET_KEY: "rk_test_abc",
    });
    expect(withKey).toMatchObject({
      kind: "run",
      options: { refundWaitMs: 30_000, stripe: { secretKey: "rk_test_abc", apiBase: undefined } },
    });
    expect(parseSmokeArgs(["--help"], {})).toEqual({ kind: "help" });
  });

  it.each([
    [[], {}, /^--app: required: the shop's URL, e\.g\. npm run smoke:stripe -- --app http:\/\/localhost:3000$/],
    [["--app", "localhost:3000"], {}, /^--app: localhost:3000 is not an http\(s\) URL/],
    [["--app", "ftp://shop"], {}, /^--app: ftp:\/\/shop is not an http\(s\) URL/],
    [["--app", "http://shop", "--refund-wait", "0"], {}, /^--refund-wait: a whole number of seconds/],
    [["--app", "http://shop", "--refund-wait", "soon"], {}, /^--refund-wait: a whole number of seconds/],
    [["--app", "http://shop", "--step-timeout", "0"], {}, /^--step-timeout: a whole number of seconds/],
    [["--ap", "http://shop"], {}, /Unknown option '--ap'.*\(see --help\)$/],
    [["--app", "http://shop"], { STRIPE_SECRET_KEY: "sk_live_abc" }, /^STRIPE_SECRET_KEY: must be a test-mode key/],
    [["--app", "http://shop"], { STRIPE_SECRET_KEY: "sk_test_emulator" }, /^STRIPE_API_BASE: required with/],
    [
      ["--app", "http://shop"],
      { STRIPE_SECRET_KEY: "sk_test_abc", STRIPE_API_BASE: "127.0.0.1:12111" },
      /^STRIPE_API_BASE: 127\.0\.0\.1:12111 is not an http\(s\) URL$/,
    ],
  ])("refuses %j with %j in one line naming what to set", (args, env, message) => {
    const parsed = parseSmokeArgs(args, env);
    expect(parsed.kind).toBe("refused");
    expect(parsed.kind === "refused" && parsed.message).toMatch(message);
    expect(parsed.kind === "refused" && parsed.message.includes("\n")).toBe(false);
  });
});
