import { describe, expect, it } from "vitest";
import { API_HEADERS, contentSecurityPolicy, securityHeaders, stripeJsSources } from "./headers";

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

  it("lets only Stripe.js's frames ask for a payment (wallets), and nothing with the emulator or on JSON", () => {
    const page = (stripe: ReturnType<typeof stripeJsSources>) =>
      securityHeaders({ nonce: "abc", pathname: "/checkout", https: true, development: false, stripe })[
        "Permissions-Policy"
      ];
    expect(page(stripeJsSources(null))).toContain('payment=(self "https://js.stripe.com")');
    expect(page(stripeJsSources("http://127.0.0.1:12111/endive/stripe.js"))).toContain("payment=()");
    expect(API_HEADERS["Permissions-Policy"]).toContain("payment=()");
    for (const policy of [page(stripeJsSources(null)), API_HEADERS["Permissions-Policy"]!])
      expect(policy).toContain("camera=(), microphone=(), geolocation=()");
  });

  it("allows styles from the shop and its nonce only: Stripe.js lists no inline styles", () => {
    const csp = contentSecurityPolicy({ nonce: "abc", development: false, stripe: stripeJsSources(null) });
    expect(csp).toContain("style-src 'self' 'nonce-abc';");
    expect(csp).not.toContain("unsafe-inline");
  });
});
