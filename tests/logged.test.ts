import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startApp, type AppProcess } from "@/scripts/lib/app-process";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { freePort, testAppEnv } from "./app-server";
import { CSP_LOG_LINES_PER_WINDOW } from "@/lib/security/csp-report";
import { cart, newKey, Shopper, waitFor } from "./helpers/shopper";

/**
 * What the app logs. The pages' Content-Security-Policy reports its
 * violations to the shop (POST /api/csp-report), which logs each one without
 * the page's query, bounds the body and limits the reports per address. A
 * PaymentIntent's client secret, which a 3-D Secure answer carries, is never
 * logged. A server of its own, so its log can be read and its limits are its own.
 */
const REPORTS_PER_ADDRESS = 4;
let emulator: StripeEmulator;
let app: AppProcess;
const lines: string[] = [];
beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
  const env = testAppEnv({
    databaseUrl: inject("databaseUrl"),
    stripeApiBase: emulator.url,
    overrides: {
      RATE_LIMIT_SCALE: "1",
      RATE_LIMIT_CSP_REPORTS_PER_ADDRESS: String(REPORTS_PER_ADDRESS),
      TRUSTED_PROXY_HOPS: "1",
      LAB_NAIVE_ENDPOINT: "1",
    },
  });
  app = await startApp({ port: await freePort(), env, log: (line) => lines.push(line) });
}, 120_000);
afterAll(async () => {
  await app?.stop();
  await emulator?.close();
});

const violations = () =>
  lines.flatMap((line) => {
    if (!line.startsWith("{")) return [];
    const entry = JSON.parse(line) as Record<string, unknown>;
    return entry.event === "csp_violation" ? [entry] : [];
  });

const report = (body: string, from: string, type = "application/csp-report") =>
  fetch(`${app.url}/api/csp-report`, {
    method: "POST",
    headers: { "content-type": type, "x-forwarded-for": from },
    body,
  });

const legacy = (documentUri: string) =>
  JSON.stringify({
    "csp-report": {
      "document-uri": documentUri,
      "violated-directive": "script-src-elem",
      "effective-directive": "script-src-elem",
      "blocked-uri": "https://evil.example/x.js?token=1",
      disposition: "enforce",
    },
  });

describe("CSP violation reports", () => {
  it("are asked for by every page's policy", async () => {
    const page = await fetch(`${app.url}/`);
    expect(page.headers.get("content-security-policy")).toMatch(/; report-uri \/api\/csp-report; report-to csp(;|$)/);
    expect(page.headers.get("reporting-endpoints")).toBe('csp="/api/csp-report"');
  });

  it("are logged one line each, without the page's query, in both forms browsers send", async () => {
    const before = violations().length;
    const secret = "pi_1_secret_2";
    const first = await report(
      legacy(`${app.url}/checkout/return?key=k&payment_intent_client_secret=${secret}`),
      "198.51.100.1",
    );
    expect(first.status).toBe(204);
    const batched = JSON.stringify([
      {
        type: "csp-violation",
        url: `${app.url}/checkout`,
        body: {
          documentURL: `${app.url}/checkout?x=1`,
          effectiveDirective: "frame-src",
          blockedURL: "https://frames.example/f",
          disposition: "enforce",
        },
      },
    ]);
    expect((await report(batched, "198.51.100.1", "application/reports+json")).status).toBe(204);
    const logged = await waitFor("both violations in the log", () => {
      const found = violations().slice(before);
      return found.length >= 2 ? found : null;
    });
    expect(logged).toEqual([
      expect.objectContaining({
        page: "/checkout/return",
        directive: "script-src-elem",
        blocked: "https://evil.example",
      }),
      expect.objectContaining({ page: "/checkout", directive: "frame-src", blocked: "https://frames.example" }),
    ]);
    expect(lines.join("\n")).not.toContain(secret);
  });

  it("are refused past the address's limit with 429, and the refused ones are not logged", async () => {
    const from = "198.51.100.2";
    const statuses: number[] = [];
    for (let i = 0; i < REPORTS_PER_ADDRESS + 2; i++)
      statuses.push((await report(legacy(`${app.url}/p${i}`), from)).status);
    expect(statuses).toEqual([...Array(REPORTS_PER_ADDRESS).fill(204), 429, 429]);
    await waitFor("the admitted reports in the log", () =>
      violations().filter((v) => /^\/p\d$/.test(String(v.page))).length >= REPORTS_PER_ADDRESS ? true : null,
    );
    expect(
      violations()
        .filter((v) => /^\/p\d$/.test(String(v.page)))
        .map((v) => v.page),
    ).toEqual(Array.from({ length: REPORTS_PER_ADDRESS }, (_, i) => `/p${i}`));
  });

  it("are sampled: a flood from many addresses writes a few lines a minute, not one a report", async () => {
    const before = violations().length;
    // The same violation from four addresses at their limit, and then CSP_LOG_LINES_PER_WINDOW + 10 kinds of it.
    const sent = [];
    for (let from = 0; from < 4; from++)
      for (let i = 0; i < REPORTS_PER_ADDRESS; i++) sent.push(report(legacy(`${app.url}/flood`), `198.51.101.${from}`));
    for (let i = 0; i < CSP_LOG_LINES_PER_WINDOW + 10; i++)
      sent.push(report(legacy(`${app.url}/kind${i}`), `198.51.102.${i}`));
    expect((await Promise.all(sent)).every((answer) => answer.status === 204)).toBe(true);
    // A line the app writes after them all: once it is read, every line of theirs is too.
    const mark = lines.length;
    expect((await fetch(`${app.url}/api/checkout`, { method: "POST" })).status).toBe(401);
    await waitFor("the line after the reports", () =>
      lines.slice(mark).some((line) => {
        const entry = line.startsWith("{") ? (JSON.parse(line) as Record<string, unknown>) : null;
        return entry?.event === "response" && entry.status === 401;
      })
        ? true
        : null,
    );
    const logged = violations().slice(before);
    expect(logged.some((v) => v.page === "/flood")).toBe(true);
    // One line for the sixteen alike (two, if a minute began among them).
    expect(logged.filter((v) => v.page === "/flood").length).toBeLessThanOrEqual(2);
    // At most the window's lines of the kinds (twice that across a minute's start), never one a report.
    expect(logged.length).toBeLessThanOrEqual(2 * CSP_LOG_LINES_PER_WINDOW);
    expect(logged.length).toBeLessThan(4 * REPORTS_PER_ADDRESS + CSP_LOG_LINES_PER_WINDOW + 10);
  });

  it("refuses a body over 8 KiB (413) and one that is no report (400)", async () => {
    const big = JSON.stringify({ "csp-report": { "document-uri": `${app.url}/`, pad: "x".repeat(9000) } });
    expect((await report(big, "198.51.100.3")).status).toBe(413);
    const answer = await report(JSON.stringify({ hello: "world" }), "198.51.100.3");
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: "invalid_request" });
  });
});

describe("a 3-D Secure payment", () => {
  it("logs its steps, never the PaymentIntent's client secret", async () => {
    const shopper = new Shopper(app.url);
    expect((await shopper.startSession({ "x-forwarded-for": "198.51.100.9" })).status).toBe(201);
    const key = newKey();
    const answer = await shopper.checkout(key, cart("pm_card_threeDSecure2Required"), {
      "x-forwarded-for": "198.51.100.9",
    });
    expect(answer.status).toBe(202);
    const secret = /client_secret=([^&"]+)/.exec(JSON.stringify(answer.body))?.[1];
    expect(secret).toMatch(/_secret_/); // the answer carries it, for the shopper's bank page
    await waitFor("the attempt's payment line", () =>
      lines.some((line) => line.includes('"event":"payment"') && line.includes(key)) ? true : null,
    );
    expect(lines.join("\n")).not.toContain(decodeURIComponent(secret!));
    expect(lines.join("\n")).not.toContain(secret!);
  });
});

describe("the lab's naive lane, when Stripe fails", () => {
  it("answers 500 and logs one line for the payment, no crash with the SDK's error", async () => {
    const shopper = new Shopper(app.url);
    expect((await shopper.startSession({ "x-forwarded-for": "198.51.100.10" })).status).toBe(201);
    const control = new EmulatorClient(emulator.url);
    // More 503s than the SDK retries, cleared again: the emulator serves this file's other tests too.
    await control.faults({ failNext: { status: 503, times: 10 } });
    const before = lines.length;
    try {
      const answer = await shopper.request("POST", "/api/lab/naive-checkout", {
        body: cart(),
        headers: { "x-forwarded-for": "198.51.100.10" },
      });
      expect(answer.status).toBe(500);
      expect(answer.body).toMatchObject({ error: "payment_failed", orderId: expect.any(String) });
    } finally {
      await control.faults({ failNext: null });
    }
    expect(await control.stat("failedInjected")).toBeGreaterThan(0);
    const said = await waitFor("the payment's line", () => {
      const found = lines.slice(before).filter((line) => line.includes('"event":"payment"'));
      return found.length > 0 ? found : null;
    });
    expect(said).toEqual([expect.stringMatching(/"kind":"unknown".*"reason":"Stripe is temporarily unavailable/)]);
    // A payment logged after it, so anything the failure printed (on either stream) is in by now. (Not a CSP
    // report: this file's other tests may have spent the minute's sample of those.)
    const paid = await shopper.request("POST", "/api/lab/naive-checkout", {
      body: cart(),
      headers: { "x-forwarded-for": "198.51.100.10" },
    });
    expect(paid.status).toBe(201);
    await waitFor("the later line", () =>
      lines.slice(before).some((line) => line.includes('"event":"payment"') && line.includes('"kind":"succeeded"'))
        ? true
        : null,
    );
    const after = lines.slice(before);
    expect(after.filter((line) => /⨯|StripeAPIError|^\s+at /.test(line))).toEqual([]);
    expect(after.filter((line) => line.includes('"level":50'))).toEqual([]);
  });
});
