import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, stripeJsSources } from "./headers";

describe("the pages' CSP and Stripe.js", () => {
  it("names exactly Stripe's documented Stripe.js origins against Stripe", () => {
    const csp = contentSecurityPolicy({ nonce: "abc", development: false, stripe: stripeJsSources(null) });
    expect(csp).toContain(
      "script-src 'self' 'nonce-abc' 'strict-dynamic' https://js.stripe.com https://*.js.stripe.com;",
    );
    expect(csp).toContain("frame-src https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com;");
    expect(csp).toContain("connect-src 'self' https://api.stripe.com;");
    const origins = csp.match(/https:\/\/[^\s;]+/g) ?? [];
    expect(new Set(origins)).toEqual(
      new Set([
        "https://js.stripe.com",
        "https://*.js.stripe.com",
        "https://hooks.stripe.com",
        "https://api.stripe.com",
      ]),
    );
  });

  it("names the emulator's origin alone when the shop runs against it", () => {
    const csp = contentSecurityPolicy({
      nonce: "abc",
      development: false,
      stripe: stripeJsSources("http://127.0.0.1:12111/endive/stripe.js"),
    });
    expect(csp.match(/https?:\/\/[^\s;]+/g)).toEqual([
      "http://127.0.0.1:12111",
      "http://127.0.0.1:12111",
      "http://127.0.0.1:12111",
    ]);
    expect(csp).toContain("frame-src http://127.0.0.1:12111;");
  });
});
