import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startApp, type AppProcess } from "@/scripts/lib/app-process";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { freePort, testAppEnv } from "./app-server";
import { TEST_OPS_TOKEN } from "./app-env";
import { waitFor } from "./helpers/shopper";

/**
 * The operator's sign-in (POST /api/ops/session) is counted per address
 * before the token is compared, right or wrong, and every try is logged. A
 * server of its own, so its log can be read and its limits are its own.
 */
const SIGNINS_PER_ADDRESS = 3;
let emulator: StripeEmulator;
let app: AppProcess;
const lines: string[] = [];
beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
  const env = testAppEnv({
    databaseUrl: inject("databaseUrl"),
    stripeApiBase: emulator.url,
    overrides: {
      OPS_TOKEN: TEST_OPS_TOKEN,
      RATE_LIMIT_SCALE: "1",
      RATE_LIMIT_OPS_SIGNINS_PER_ADDRESS: String(SIGNINS_PER_ADDRESS),
      TRUSTED_PROXY_HOPS: "1",
    },
  });
  app = await startApp({ port: await freePort(), env, log: (line) => lines.push(line) });
}, 120_000);
afterAll(async () => {
  await app?.stop();
  await emulator?.close();
});

const signIn = (token: string, from: string) =>
  fetch(`${app.url}/api/ops/session`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": from },
    body: new URLSearchParams({ name: "Ada", token }).toString(),
    redirect: "manual",
  });

const signins = (address: string) =>
  lines.flatMap((line) => {
    if (!line.startsWith("{")) return [];
    const entry = JSON.parse(line) as Record<string, unknown>;
    return entry.event === "ops_signin" && entry.address === address ? [entry.outcome] : [];
  });

describe("the operator's sign-in", () => {
  it("takes a few tries per address a window, then refuses even the right token, and logs each", async () => {
    const guesser = `203.0.113.${1 + Math.floor(Math.random() * 250)}`;
    for (let i = 0; i < SIGNINS_PER_ADDRESS; i++) {
      const wrong = await signIn(`guess-${i}-${"x".repeat(40)}`, guesser);
      expect(wrong.status).toBe(303);
      expect(wrong.headers.get("location")).toBe("/ops?notice=signin_failed");
    }
    const throttled = await signIn(TEST_OPS_TOKEN, guesser);
    expect(throttled.status).toBe(303);
    expect(throttled.headers.get("location")).toBe("/ops?notice=signin_throttled");
    expect(throttled.headers.get("set-cookie")).toBeNull(); // the right token, and still no cookie

    const operator = `198.51.100.${1 + Math.floor(Math.random() * 250)}`;
    const admitted = await signIn(TEST_OPS_TOKEN, operator);
    expect(admitted.status).toBe(303);
    expect(admitted.headers.get("location")).toBe("/ops");
    const cookie = admitted.headers.get("set-cookie")!.split(";")[0]!;
    const page = await fetch(`${app.url}/ops`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Ada");

    await waitFor("the sign-ins to be logged", async () => signins(operator).length === 1, 5_000);
    expect(signins(guesser)).toEqual([...Array<string>(SIGNINS_PER_ADDRESS).fill("refused"), "throttled"]);
    expect(signins(operator)).toEqual(["signed_in"]);
  });
});
