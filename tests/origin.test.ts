import { describe, expect, it } from "vitest";
import { TEST_OPS_TOKEN } from "./app-env";
import { useTestApp } from "./helpers/harness";
import { cart, newKey, Shopper, type Answer } from "./helpers/shopper";

/**
 * The Origin check on browser POSTs, as deployed behind a proxy that rewrites
 * Host (the app sees `localhost:<port>`, the browser is on shop.example).
 * One server per configuration: the check is read from the environment.
 */
const forbidden = (answer: Answer) =>
  expect({ status: answer.status, error: answer.body?.error }).toEqual({ status: 403, error: "forbidden_origin" });

/** Signs in on /ops's form: the operator's Set-Cookie, split into its name=value and lowercased attributes. */
async function signInOperator(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/api/ops/session`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ token: TEST_OPS_TOKEN, name: "Robin" }).toString(),
  });
  expect(response.status).toBe(303);
  expect(response.headers.get("location")).toBe("/ops");
  const [cookie] = response.headers.getSetCookie();
  const [pair, ...attributes] = cookie!.split(";").map((part) => part.trim());
  const at = pair!.indexOf("=");
  return { name: pair!.slice(0, at), value: pair!.slice(at + 1), attributes: attributes.map((a) => a.toLowerCase()) };
}

/** Whether a cookie signs the operator in: on the page, and on a form route (which reads it from the request). */
async function signedIn(url: string, cookie: string, headers: Record<string, string> = {}) {
  const page = await (await fetch(`${url}/ops`, { headers: { cookie, ...headers } })).text();
  // React puts a comment between the text and the name it renders.
  const onPage = /Signed in as (<!-- -->)?Robin/.test(page);
  const form = await fetch(`${url}/api/ops/findings/handled`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, ...headers },
    body: "key=none&note=",
  });
  // Signed in, an empty note is sent back to the page; signed out, the route wants the credential.
  expect(form.status).toBe(onPage ? 303 : 401);
  return onPage;
}

describe("with APP_ORIGIN set to the public origins", () => {
  const h = useTestApp({ APP_ORIGIN: "https://shop.example, https://www.shop.example", OPS_TOKEN: TEST_OPS_TOKEN });

  it("accepts a browser on a listed origin although the Host it reaches is another, and the payment goes through", async () => {
    const shopper = new Shopper(h.url);
    expect((await shopper.startSession({ origin: "https://shop.example" })).status).toBe(201);
    expect((await new Shopper(h.url).startSession({ origin: "https://www.shop.example" })).status).toBe(201);
    const paid = await shopper.checkout(newKey(), cart(), { origin: "https://shop.example" });
    expect(paid.status).toBe(201);
    expect((await h.emulator.stats()).charges).toBe(1);
  });

  it("seals the session in a __Host- cookie, Secure, though the proxy in front says nothing of https", async () => {
    const shopper = new Shopper(h.url);
    const started = await shopper.startSession({ origin: "https://shop.example" });
    expect(started.status).toBe(201);
    const [cookie] = started.headers.getSetCookie();
    const attributes = cookie!.split(";").map((part) => part.trim().toLowerCase());
    expect(attributes[0]).toMatch(/^__host-checkout_session=.{40,}/);
    expect(attributes).toEqual(expect.arrayContaining(["secure", "path=/", "httponly", "samesite=lax"]));
    expect(attributes.some((a) => a.startsWith("domain="))).toBe(false); // __Host- forbids a Domain
    // It is the session: sent back, it names the same customer.
    expect((await shopper.startSession({ origin: "https://shop.example" })).body).toEqual(started.body);
    // The same seal under the plain name (a cookie planted over http or by a sibling subdomain) is no session.
    const planted = `checkout_session=${shopper.cookie!.split("=").slice(1).join("=")}`;
    const again = await new Shopper(h.url).startSession({ origin: "https://shop.example", cookie: planted });
    expect(again.status).toBe(201);
    expect(again.body.customerId).not.toBe(started.body.customerId);
  });

  it("names the operator's cookie __Host- too, Secure, reads it under that name only, and clears it so", async () => {
    const cookie = await signInOperator(h.url, { origin: "https://shop.example" });
    expect(cookie.name).toBe("__Host-ops_operator");
    expect(cookie.value.length).toBeGreaterThan(40);
    expect(cookie.attributes).toEqual(expect.arrayContaining(["secure", "path=/", "httponly", "samesite=strict"]));
    expect(cookie.attributes.some((a) => a.startsWith("domain="))).toBe(false);
    expect(await signedIn(h.url, `${cookie.name}=${cookie.value}`, { origin: "https://shop.example" })).toBe(true);
    // The same seal under the plain name (planted over http or by a sibling subdomain) signs nobody in.
    expect(await signedIn(h.url, `ops_operator=${cookie.value}`, { origin: "https://shop.example" })).toBe(false);
    const signOut = await fetch(`${h.url}/api/ops/session`, { method: "DELETE" });
    expect(signOut.status).toBe(204);
    const [cleared] = signOut.headers.getSetCookie();
    expect(cleared).toMatch(/^__Host-ops_operator=;/);
    expect(cleared!.toLowerCase()).toMatch(/max-age=0/);
    expect(cleared!.toLowerCase()).toMatch(/; secure/); // a browser ignores a __Host- cookie without it
  });

  it("refuses every other origin, the internal Host included", async () => {
    const shopper = await Shopper.arrive(h.url);
    const before = await h.emulator.stats();
    forbidden(await shopper.checkout(newKey(), cart(), { origin: "https://evil.example" }));
    forbidden(await shopper.checkout(newKey(), cart(), { origin: "http://shop.example" })); // another scheme
    forbidden(await shopper.checkout(newKey(), cart(), { origin: h.url })); // the Host the proxy rewrote to
    forbidden(await new Shopper(h.url).startSession({ origin: "https://shop.example:8443" }));
    expect(await h.emulator.stats()).toEqual(before);
  });
});

describe("with TRUST_PROXY=1 and no APP_ORIGIN", () => {
  const h = useTestApp({ TRUST_PROXY: "1" });

  it("compares the Origin with the proxy's X-Forwarded-Host", async () => {
    const shopper = new Shopper(h.url);
    const viaProxy = { origin: "https://shop.example", "x-forwarded-host": "shop.example" };
    expect((await shopper.startSession(viaProxy)).status).toBe(201);
    expect((await shopper.checkout(newKey(), cart(), viaProxy)).status).toBe(201);
    forbidden(
      await shopper.checkout(newKey(), cart(), { origin: "https://evil.example", "x-forwarded-host": "shop.example" }),
    );
    forbidden(await shopper.checkout(newKey(), cart(), { origin: "https://shop.example" })); // no proxy header: Host decides
  });
});

describe("by default (no APP_ORIGIN, proxy not trusted)", () => {
  const h = useTestApp();

  it("ignores X-Forwarded-Host, which any client can send, and compares the Origin with Host", async () => {
    forbidden(
      await new Shopper(h.url).startSession({ origin: "https://evil.example", "x-forwarded-host": "evil.example" }),
    );
    expect((await new Shopper(h.url).startSession({ origin: h.url })).status).toBe(201);
  });
});

describe("the operator's cookie without APP_ORIGIN", () => {
  const h = useTestApp({ OPS_TOKEN: TEST_OPS_TOKEN });

  it("is ops_operator over plain http, without Secure, and __Host- when the proxy in front says https", async () => {
    const plain = await signInOperator(h.url);
    expect(plain.name).toBe("ops_operator");
    expect(plain.attributes).not.toContain("secure");
    expect(await signedIn(h.url, `ops_operator=${plain.value}`)).toBe(true);
    expect(await signedIn(h.url, `__Host-ops_operator=${plain.value}`)).toBe(false);

    const https = { "x-forwarded-proto": "https" };
    const secure = await signInOperator(h.url, https);
    expect(secure.name).toBe("__Host-ops_operator");
    expect(secure.attributes).toContain("secure");
    expect(await signedIn(h.url, `__Host-ops_operator=${secure.value}`, https)).toBe(true);
    expect(await signedIn(h.url, `ops_operator=${secure.value}`, https)).toBe(false);
    // A malformed escape in a hand-made cookie signs nobody in; the page still answers.
    expect(await signedIn(h.url, `ops_operator=%E0%A4%A`)).toBe(false);
  });
});
