import { describe, expect, it } from "vitest";
import { useTestApp } from "./helpers/harness";

/** Without OPS_TOKEN the operator's page and its routes do not exist, as metrics do not without theirs. */
const h = useTestApp();

describe("the operator's page without OPS_TOKEN", () => {
  it("is 404, page and routes alike, and says what to set", async () => {
    const page = await fetch(`${h.url}/ops`);
    expect(page.status).toBe(404);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const api = await fetch(`${h.url}/api/ops/findings`, { headers: { authorization: "Bearer anything" } });
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({
      error: "not_found",
      message: "The operator's page is off: set OPS_TOKEN to serve it.",
    });
    const signIn = await fetch(`${h.url}/api/ops/session`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "name=x&token=y",
    });
    expect(signIn.status).toBe(404);
    const signOut = await fetch(`${h.url}/api/ops/sign-out`, { method: "POST", redirect: "manual" });
    expect(signOut.status).toBe(404);
  });
});
