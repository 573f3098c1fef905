import { sealData } from "iron-session";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { importWithEnv } from "@/tests/helpers/env";

const SECRET = "5e0c8a3f1b7d29e4c6a0f8b2d5e1c9a7f3b6d0e8c2a4f7b1d9e5c3a8f0b6d2e4";

// The configuration is read once per process: the session module is loaded afresh under this one.
const { module: session, restore } = await importWithEnv({ SESSION_SECRET: SECRET }, () => import("./session"));
const { currentCustomerId, sessionCookieOf } = session;
afterAll(() => restore());
let spy: ReturnType<typeof vi.spyOn> | undefined;
afterEach(() => spy?.mockRestore());

const request = (cookie: string) => new Request("http://shop.test/api/checkout", { headers: { cookie } });
const sealFor = (customerId: string, ttl = 3600) => sealData({ customerId }, { password: SECRET, ttl });
/** Counts key derivations: iron-session derives its keys with WebCrypto's PBKDF2 on every unseal. */
const derivations = () => (spy = vi.spyOn(globalThis.crypto.subtle, "deriveBits"));

describe("sessionCookieOf", () => {
  it.each([
    ["the only cookie", "checkout_session=abc", "abc"],
    ["among others", "theme=dark; checkout_session=abc; lang=en", "abc"],
    ["URI-decoded", "checkout_session=a%2Ab", "a*b"],
    ["the last of two, as Next's cookie store reads it", "checkout_session=first; checkout_session=second", "second"],
    ["an undecodable value skipped", "checkout_session=first; checkout_session=%E0%A4%A", "first"],
    ["a prefix of the name is another cookie", "xcheckout_session=abc", null],
    ["empty", "checkout_session=", null],
    ["no header", null, null],
  ])("%s", (_, header, expected) => {
    expect(sessionCookieOf(header)).toBe(expected);
  });
});

describe("currentCustomerId", () => {
  it("unseals a seal once, then answers the same seal without deriving keys again", async () => {
    const seal = await sealFor("cus_cached");
    derivations();
    expect(await currentCustomerId(request(`checkout_session=${seal}`))).toBe("cus_cached");
    const first = spy!.mock.calls.length;
    expect(first).toBeGreaterThan(0);
    expect(await currentCustomerId(request(`checkout_session=${seal}`))).toBe("cus_cached");
    expect(spy!.mock.calls.length).toBe(first);
  });

  it("never keeps a seal that failed its check: each forged copy is checked again and refused", async () => {
    const seal = await sealFor("cus_real");
    const forged = seal.slice(0, -8) + (seal.endsWith("AAAAAAAA") ? "BBBBBBBB" : "AAAAAAAA");
    derivations();
    expect(await currentCustomerId(request(`checkout_session=${forged}`))).toBeNull();
    const first = spy!.mock.calls.length;
    expect(first).toBeGreaterThan(0);
    expect(await currentCustomerId(request(`checkout_session=${forged}`))).toBeNull();
    expect(spy!.mock.calls.length).toBe(2 * first);
  });

  it("keeps a seal no longer than its own expiry, and refuses it once past it", async () => {
    const seal = await sealFor("cus_short", 1);
    derivations();
    expect(await currentCustomerId(request(`checkout_session=${seal}`))).toBe("cus_short");
    const first = spy!.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    // Past the seal's expiry the cache no longer answers, and the seal is refused by its age
    // (iron-session alone would still accept it for a minute of clock skew).
    expect(await currentCustomerId(request(`checkout_session=${seal}`))).toBeNull();
    expect(spy!.mock.calls.length).toBe(first);
  });

  it("refuses a genuine seal made without an expiry, which iron-session alone accepts forever", async () => {
    const forever = await sealFor("cus_forever", 0);
    expect(forever.split("*")[5]).toBe(""); // no expiry in it
    expect(await currentCustomerId(request(`checkout_session=${forever}`))).toBeNull();
  });

  it.each([
    ["no cookie", ""],
    ["a made-up value", "checkout_session=Fe26.2**0123456789abcdef*forged*customer"],
    ["a non-numeric expiry", "checkout_session=Fe26.2*1*a*b*c*tomorrow*e*f"],
  ])("null for %s", async (_, cookie) => {
    expect(await currentCustomerId(request(cookie))).toBeNull();
  });
});
