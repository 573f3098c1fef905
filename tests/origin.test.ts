import { describe, expect, it } from "vitest";
import { useTestApp } from "./helpers/harness";
import { cart, newKey, Shopper, type Answer } from "./helpers/shopper";

/**
 * The Origin check on browser POSTs, as deployed behind a proxy that rewrites
 * Host (the app sees `localhost:<port>`, the browser is on shop.example).
 * One server per configuration: the check is read from the environment.
 */
const forbidden = (answer: Answer) =>
  expect({ status: answer.status, error: answer.body?.error }).toEqual({ status: 403, error: "forbidden_origin" });

describe("with APP_ORIGIN set to the public origins", () => {
  const h = useTestApp({ APP_ORIGIN: "https://shop.example, https://www.shop.example" });

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
