import { describe, expect, it } from "vitest";
import { isAllowedOrigin } from "./origin";

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
