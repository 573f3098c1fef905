import http from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startApp, type AppProcess } from "@/scripts/lib/app-process";
import { PROXY_BODY_BUFFER_BYTES } from "@/lib/body-limit";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { freePort, testAppEnv } from "./app-server";
import { waitFor } from "./helpers/shopper";

/**
 * What Next.js buffers of a request body for proxy.ts (pages and the lab's
 * routes): at most PROXY_BODY_BUFFER_BYTES, not its default 10 MB. Next says
 * so in the log when a body is cut there; the lab's routes still read their
 * bodies whole up to their own limit and refuse a longer one with 413.
 */
let emulator: StripeEmulator;
let app: AppProcess;
const lines: string[] = [];
beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
  const env = testAppEnv({
    databaseUrl: inject("databaseUrl"),
    stripeApiBase: emulator.url,
    overrides: { LAB_NAIVE_ENDPOINT: "1" },
  });
  app = await startApp({ port: await freePort(), env, log: (line) => lines.push(line) });
}, 120_000);
afterAll(async () => {
  await app?.stop();
  await emulator?.close();
});

/** A POST whose body is sent in chunks, without Content-Length, as a client streaming it would. */
function postChunked(path: string, bytes: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${app.url}${path}`,
      { method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked" } },
      (response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => (body += chunk.toString()));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on("error", reject);
    const json = `{"pad":"${"x".repeat(Math.max(0, bytes - 10))}"}`;
    for (let at = 0; at < json.length; at += 4096) request.write(json.slice(at, at + 4096));
    request.end();
  });
}

describe("request bodies through the proxy", () => {
  it("of a page are buffered up to the limit only, not 10 MB", async () => {
    const answer = await fetch(`${app.url}/`, { method: "POST", body: "x".repeat(256 * 1024) });
    await answer.arrayBuffer();
    const cut = await waitFor("Next's line about the body it cut", async () =>
      lines.find((line) => /Request body exceeded .* for \/(\s|\.|$)/.test(line)),
    );
    // As Next words it; with its default the line would say 10MB, and only for a body over that.
    expect(cut).toContain(`Request body exceeded ${PROXY_BODY_BUFFER_BYTES / 1024}KB for /`);
  });

  it("of the lab's routes are read whole up to their limit; past it, 413", async () => {
    const small = await postChunked("/api/lab/faults", 1024);
    expect(small.status).toBe(400); // read whole: valid JSON, not a fault the lab can set
    expect(JSON.parse(small.body)).toMatchObject({ error: "invalid_request" });
    // Over the route's limit, and over what the proxy buffers.
    for (const bytes of [20 * 1024, 200 * 1024]) {
      const large = await postChunked("/api/lab/faults", bytes);
      expect(large.status, `${bytes} bytes`).toBe(413);
      expect(JSON.parse(large.body)).toMatchObject({ error: "payload_too_large" });
    }
  });
});
