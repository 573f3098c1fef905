import { describe, expect, it } from "vitest";
import { useTestApp } from "./helpers/harness";

/**
 * Every response carries the security headers, decided in one place
 * (lib/security/headers.ts): pages, API answers, static assets and 404s
 * alike. Scripts run only with a nonce that is new for every response and
 * stamped on the page's scripts; nothing may load from another origin; no
 * page may be framed; JSON loads nothing at all.
 */
const h = useTestApp();

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${h.url}${path}`, { headers, redirect: "manual" });

function expectSecurityHeaders(response: Response, path: string) {
  const csp = response.headers.get("content-security-policy") ?? "";
  expect(csp, path).toContain("frame-ancestors 'none'");
  if (path.includes("/api/")) {
    // JSON loads nothing at all.
    expect(csp, path).not.toMatch(/https?:|unsafe-inline|unsafe-eval|\*/);
    expect(csp, path).toMatch(/(^|; )default-src 'none'(;|$)/);
  } else {
    // Pages: Stripe.js, which here is the emulator's, and nothing else from another origin.
    const stripe = new URL(h.app.emulator.url).origin;
    expect(csp, path).toMatch(/(^|; )default-src 'self'(;|$)/);
    expect(csp, path).toContain(`script-src 'self' 'nonce-`);
    expect(csp, path).toMatch(
      new RegExp(`script-src 'self' 'nonce-[A-Za-z0-9+/=]{16,}' 'strict-dynamic' ${stripe}(;|$)`),
    );
    expect(csp, path).toContain(`connect-src 'self' ${stripe};`);
    expect(csp, path).toContain(`frame-src ${stripe};`);
    expect(csp.replaceAll(stripe, ""), path).not.toMatch(/https?:|unsafe-inline|unsafe-eval|\*/);
  }
  expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
  expect(response.headers.get("referrer-policy"), path).toBeTruthy();
  expect(response.headers.get("permissions-policy"), path).toContain("camera=()");
}

describe("security headers", () => {
  it("are on every kind of response: page, API, error, asset, unknown path", async () => {
    const home = await get("/");
    expect(home.status).toBe(200);
    const html = await home.text();
    const asset = /\/_next\/static\/[^"]+\.js/.exec(html)?.[0];
    expect(asset).toBeDefined();
    const session = await fetch(`${h.url}/api/session`, { method: "POST" });
    const labOff = await get("/api/lab/events");
    for (const [path, response, status] of [
      ["/", home, 200],
      ["/checkout", await get("/checkout"), 200],
      ["/api/products", await get("/api/products"), 200],
      ["POST /api/session", session, 201],
      ["/api/orders (no session)", await get("/api/orders"), 401],
      ["/api/lab/events (the lab is off)", labOff, 404],
      ["/api/nothing-here", await get("/api/nothing-here"), 404],
      [asset!, await get(asset!), 200],
      ["/no-such-page", await get("/no-such-page"), 404],
    ] as const) {
      expect(response.status, path).toBe(status);
      expectSecurityHeaders(response, path);
    }
  });

  it("stamp each page's scripts with that response's own nonce, new every time", async () => {
    const nonces = [];
    for (let i = 0; i < 2; i++) {
      const response = await get("/");
      const nonce = /'nonce-([^']+)'/.exec(response.headers.get("content-security-policy") ?? "")?.[1];
      expect(nonce).toBeDefined();
      const html = await response.text();
      const scripts = html.match(/<script\b[^>]*>/g) ?? [];
      expect(scripts.length).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
      nonces.push(nonce);
    }
    expect(new Set(nonces).size).toBe(2);
  });

  it("send no Referer from the 3-D Secure return page, whose URL carries the client secret", async () => {
    const back = await get("/checkout/return?key=x&payment_intent_client_secret=pi_1_secret_2");
    expect(back.headers.get("referrer-policy")).toBe("no-referrer");
    expect((await get("/checkout")).headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  });

  it("pin https (HSTS) only when the browser came over https, never on plain http", async () => {
    expect((await get("/")).headers.get("strict-transport-security")).toBeNull();
    expect((await get("/api/products")).headers.get("strict-transport-security")).toBeNull();
    for (const path of ["/", "/api/products"]) {
      const tls = await get(path, { "x-forwarded-proto": "https" });
      expect(tls.headers.get("strict-transport-security"), path).toMatch(/^max-age=\d{8,}/);
    }
  });
});
