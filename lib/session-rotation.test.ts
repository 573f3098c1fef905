import { randomBytes } from "node:crypto";
import { sealData } from "iron-session";
import { afterAll, describe, expect, it } from "vitest";
import { importWithEnv } from "@/tests/helpers/env";

/**
 * Rotating SESSION_SECRET without logging everyone out: the old secret moves
 * to SESSION_SECRET_PREVIOUS, seals it made still open, new ones use the new
 * secret, and a seal made with neither is refused. The configuration is read
 * once per process, so the session module is loaded afresh under this one.
 */
const CURRENT = randomBytes(32).toString("hex");
const PREVIOUS = randomBytes(32).toString("base64");
const OTHER = randomBytes(32).toString("hex");

const { module: session, restore } = await importWithEnv(
  { SESSION_SECRET: CURRENT, SESSION_SECRET_PREVIOUS: PREVIOUS },
  () => import("./session"),
);
const { currentCustomerId } = session;
afterAll(() => restore());

const request = (seal: string) =>
  new Request("http://shop.test/api/orders", { headers: { cookie: `checkout_session=${seal}` } });
const seal = (customerId: string, password: string | Record<string, string>) =>
  sealData({ customerId }, { password, ttl: 3600 });

describe("a session secret rotation", () => {
  it("opens seals of the current and of the previous secret, and no other", async () => {
    expect(await currentCustomerId(request(await seal("cus_new", CURRENT)))).toBe("cus_new");
    expect(await currentCustomerId(request(await seal("cus_before", PREVIOUS)))).toBe("cus_before");
    expect(await currentCustomerId(request(await seal("cus_forged", OTHER)))).toBeNull();
  });

  it("opens a previous seal whatever password id it was made under", async () => {
    expect(await currentCustomerId(request(await seal("cus_id2", { 2: PREVIOUS })))).toBe("cus_id2");
  });
});
