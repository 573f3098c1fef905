import { describe, expect, it } from "vitest";
import * as events from "@/app/api/lab/events/route";
import * as faults from "@/app/api/lab/faults/route";
import * as ledger from "@/app/api/lab/ledger/route";
import * as loseResponse from "@/app/api/lab/lose-response/route";
import * as naiveCheckout from "@/app/api/lab/naive-checkout/route";
import { env } from "@/lib/env";

/**
 * Every lab route handler checks the lab's switch itself: called directly,
 * with nothing in front of it (no proxy.ts), while the lab is off it answers
 * 404 before it reads a session, a body or the provider.
 */
const RUN = "00000000-0000-4000-8000-000000000000";
const HANDLERS: Array<[string, (request: Request) => Promise<Response>, string]> = [
  ["GET", events.GET, `/api/lab/events?run=${RUN}`],
  ["GET", ledger.GET, `/api/lab/ledger?run=${RUN}`],
  ["GET", faults.GET, "/api/lab/faults"],
  ["POST", faults.POST, "/api/lab/faults"],
  ["POST", naiveCheckout.POST, "/api/lab/naive-checkout"],
  ["POST", loseResponse.POST, "/api/lab/lose-response?lane=naive"],
];

describe("the lab's route handlers, with the lab off", () => {
  it("answer 404 not_found themselves", async () => {
    expect(env().LAB_NAIVE_ENDPOINT).toBe(false);
    for (const [method, handler, path] of HANDLERS) {
      const request = new Request(`http://localhost${path}`, {
        method,
        headers: { "content-type": "application/json" },
        ...(method === "POST" ? { body: "{}" } : {}),
      });
      const answer = await handler(request);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(await answer.json(), `${method} ${path}`).toMatchObject({ error: "not_found" });
    }
  });
});
