import { describe, expect, it } from "vitest";
import { useTestApp } from "./helpers/harness";

/**
 * The lab exists only when it is switched on (lib/lab/enabled.ts): without
 * LAB_NAIVE_ENDPOINT=1 its page, every /api/lab/* route and the nav link are
 * gone (404), whoever asks and however.
 */
const off = useTestApp();
const on = useTestApp({ LAB_NAIVE_ENDPOINT: "1" });

const LAB_ROUTES: Array<[string, string]> = [
  ["GET", "/api/lab/events?run=00000000-0000-4000-8000-000000000000"],
  ["GET", "/api/lab/ledger?run=00000000-0000-4000-8000-000000000000"],
  ["GET", "/api/lab/faults"],
  ["POST", "/api/lab/faults"],
  ["POST", "/api/lab/naive-checkout"],
  ["POST", "/api/lab/lose-response?lane=naive"],
];

describe("the lab, switched off", () => {
  it("has no page and no link to it", async () => {
    const page = await fetch(`${off.url}/lab`);
    expect(page.status).toBe(404);
    const home = await (await fetch(`${off.url}/`)).text();
    expect(home).toContain("Catalogue");
    expect(home).not.toMatch(/href="\/lab"/);
  });

  it("answers 404 on every /api/lab route, even for a shopper with a session", async () => {
    const shopper = await off.shopper();
    for (const [method, path] of LAB_ROUTES) {
      const answer = await shopper.request(method, path, method === "POST" ? { body: {} } : {});
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body, `${method} ${path}`).toMatchObject({ error: "not_found" });
    }
    expect(await off.emulator.ledger()).toEqual([]); // nothing reached the provider
  });
});

describe("the lab, switched on (with the emulator)", () => {
  it("has its page, its link and its routes", async () => {
    expect((await fetch(`${on.url}/lab`)).status).toBe(200);
    expect(await (await fetch(`${on.url}/`)).text()).toMatch(/href="\/lab"/);
    const shopper = await on.shopper();
    const events = await shopper.request("GET", LAB_ROUTES[0]![1]);
    expect(events.status).toBe(200);
    expect(events.body).toMatchObject({ events: [] });
  });
});
