import { describe, expect, it } from "vitest";
import { isAllowedOrigin, shopperOrigin } from "./origin";

const headers = (h: Record<string, string>) => new Headers(h);
const behindProxy = headers({ host: "10.0.0.7:3000", "x-forwarded-host": "shop.example" });

describe("the Origin check", () => {
  it("without configuration, accepts only the host the request was sent to", () => {
    const policy = { appOrigins: [], trustProxy: false };
    expect(isAllowedOrigin("http://localhost:3000", headers({ host: "localhost:3000" }), policy)).toBe(true);
    expect(isAllowedOrigin("http://evil.example", headers({ host: "localhost:3000" }), policy)).toBe(false);
    expect(isAllowedOrigin("null", headers({ host: "localhost:3000" }), policy)).toBe(false);
  });

  it("ignores X-Forwarded-Host unless told to trust the proxy: a client can send it too", () => {
    expect(isAllowedOrigin("https://shop.example", behindProxy, { appOrigins: [], trustProxy: false })).toBe(false);
    expect(isAllowedOrigin("https://shop.example", behindProxy, { appOrigins: [], trustProxy: true })).toBe(true);
    expect(isAllowedOrigin("https://evil.example", behindProxy, { appOrigins: [], trustProxy: true })).toBe(false);
  });

  it("with APP_ORIGIN, accepts exactly those origins whatever the Host", () => {
    const policy = { appOrigins: ["https://shop.example", "https://www.shop.example"], trustProxy: false };
    expect(isAllowedOrigin("https://shop.example", behindProxy, policy)).toBe(true);
    expect(isAllowedOrigin("https://www.shop.example", headers({ host: "internal:3000" }), policy)).toBe(true);
    expect(isAllowedOrigin("http://shop.example", behindProxy, policy)).toBe(false); // another scheme is another origin
    expect(isAllowedOrigin("http://10.0.0.7:3000", behindProxy, policy)).toBe(false); // the internal Host is not listed
  });
});

describe("the origin the shopper's browser used", () => {
  const none = { appOrigins: [], trustProxy: false };

  it("is the request's Origin when the check accepts it: 127.0.0.1 stays 127.0.0.1", () => {
    const h = headers({ host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000" });
    expect(shopperOrigin(h, none, "http:")).toBe("http://127.0.0.1:3000");
    const behind = headers({
      host: "10.0.0.7:3000",
      "x-forwarded-host": "shop.example",
      origin: "https://shop.example",
    });
    expect(shopperOrigin(behind, { appOrigins: [], trustProxy: true }, "http:")).toBe("https://shop.example");
  });

  it("is never a foreign Origin: then APP_ORIGIN, else the Host the request was sent to", () => {
    const foreign = headers({ host: "127.0.0.1:3000", origin: "https://evil.example" });
    expect(shopperOrigin(foreign, none, "http:")).toBe("http://127.0.0.1:3000");
    expect(shopperOrigin(foreign, { appOrigins: ["https://shop.example"], trustProxy: false }, "http:")).toBe(
      "https://shop.example",
    );
  });

  it("without an Origin, is APP_ORIGIN's first, else the Host (and the proxy's scheme when trusted)", () => {
    const policy = { appOrigins: ["https://shop.example", "https://www.shop.example"], trustProxy: false };
    expect(shopperOrigin(headers({ host: "internal:3000" }), policy, "http:")).toBe("https://shop.example");
    expect(shopperOrigin(headers({ host: "127.0.0.1:3000" }), none, "http:")).toBe("http://127.0.0.1:3000");
    const proxied = headers({
      host: "10.0.0.7:3000",
      "x-forwarded-host": "shop.example",
      "x-forwarded-proto": "https",
    });
    expect(shopperOrigin(proxied, { appOrigins: [], trustProxy: true }, "http:")).toBe("https://shop.example");
    expect(shopperOrigin(proxied, none, "http:")).toBe("http://10.0.0.7:3000");
  });
});
