import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { rejection, useEmulator } from "./test-support";

// iDEAL and Bancontact driven by the real stripe-node SDK: a server-side
// create-and-confirm answers requires_action with a redirect_to_url; the bank's
// page decides the intent and sends the shopper to return_url.

const emulator = useEmulator();
const RETURN_URL = "http://shop.test/checkout/return?key=k";

interface PageForm {
  action: string;
  fields: URLSearchParams;
}

async function openPage(url: string): Promise<{ status: number; html: string; forms: Map<string, PageForm> }> {
  const res = await fetch(url);
  const html = await res.text();
  expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  const forms = new Map<string, PageForm>();
  for (const [, action, inner] of html.matchAll(/<form method="post" action="([^"]+)">(.*?)<\/form>/g)) {
    const fields = new URLSearchParams();
    for (const [, name, value] of (inner ?? "").matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
      fields.set(
        name ?? "",
        (value ?? "").replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))),
      );
    const label = /<button type="submit">([^<]+)<\/button>/.exec(inner ?? "")?.[1] ?? "";
    forms.set(label, { action: new URL(action ?? "", url).toString(), fields });
  }
  return { status: res.status, html, forms };
}

async function press(form: PageForm | undefined): Promise<URL> {
  if (!form) throw new Error("no such button on the page");
  const res = await fetch(form.action, { method: "POST", body: form.fields, redirect: "manual" });
  expect(res.status).toBe(303);
  return new URL(res.headers.get("location") ?? "");
}

function pay(stripe: Stripe, token: string, extra: Partial<Stripe.PaymentIntentCreateParams> = {}) {
  return stripe.paymentIntents.create({
    amount: 4200,
    currency: "eur",
    confirm: true,
    confirmation_method: "manual",
    confirmation_token: token,
    allowed_payment_method_types: ["card", "ideal", "bancontact"],
    return_url: RETURN_URL,
    ...extra,
  });
}

async function eventTypes(intentId: string): Promise<string[]> {
  const events = await emulator.client().events();
  return events
    .filter((event) => (event.data.object as { id?: string }).id === intentId)
    .map((event) => event.type)
    .reverse();
}

describe.each(["ideal", "bancontact"] as const)("%s", (type) => {
  it("redirects to the bank; authorized, a manual intent waits for the server's one confirm", async () => {
    const stripe = emulator.stripe();
    const token = await stripe.testHelpers.confirmationTokens.create({ payment_method_data: { type } });
    expect(token.payment_method_preview?.type).toBe(type);
    const intent = await pay(stripe, token.id);
    expect(intent.status).toBe("requires_action");
    expect(intent.next_action?.type).toBe("redirect_to_url");
    expect(intent.next_action?.redirect_to_url?.return_url).toBe(RETURN_URL);
    const method = await stripe.paymentMethods.retrieve(intent.payment_method as string);
    expect(method.type).toBe(type);
    if (type === "ideal") expect(method.ideal).toEqual({ bank: null, bic: null });
    else expect(method.bancontact).toEqual({});

    const page = await openPage(intent.next_action?.redirect_to_url?.url ?? "");
    expect(page.status).toBe(200);
    expect([...page.forms.keys()]).toEqual(["Authorize test payment", "Fail test payment"]);
    const back = await press(page.forms.get("Authorize test payment"));
    expect(`${back.origin}${back.pathname}`).toBe("http://shop.test/checkout/return");
    expect(back.searchParams.get("key")).toBe("k");
    expect(back.searchParams.get("payment_intent")).toBe(intent.id);
    expect(back.searchParams.get("payment_intent_client_secret")).toBe(intent.client_secret);
    expect(back.searchParams.get("redirect_status")).toBe("succeeded");
    // Stripe's confirm reference: under manual confirmation the intent returns to requires_confirmation
    // after its next action, and only the server's confirm completes it. No event until then.
    expect(await stripe.paymentIntents.retrieve(intent.id)).toMatchObject({
      status: "requires_confirmation",
      amount_received: 0,
      next_action: null,
    });
    expect(await eventTypes(intent.id)).toEqual(["payment_intent.created", "payment_intent.requires_action"]);

    // Pressed again (the back button): answered already, it only sends the shopper back.
    const again = await press(page.forms.get("Fail test payment"));
    expect(again.searchParams.get("redirect_status")).toBe("succeeded");
    expect((await stripe.paymentIntents.retrieve(intent.id)).status).toBe("requires_confirmation");

    const confirmed = await stripe.paymentIntents.confirm(intent.id, { return_url: RETURN_URL });
    expect(confirmed).toMatchObject({ status: "succeeded", amount_received: 4200, next_action: null });
    expect(confirmed.latest_charge).toBeNull(); // a bank payment records no Charge here
    expect(await eventTypes(intent.id)).toEqual([
      "payment_intent.created",
      "payment_intent.requires_action",
      "payment_intent.succeeded",
    ]);
    // A second confirm finds nothing to do: Stripe's unexpected state.
    const late = await rejection(stripe.paymentIntents.confirm(intent.id, { return_url: RETURN_URL }));
    expect(late.code).toBe("payment_intent_unexpected_state");
    expect((await emulator.client().stats()).confirms).toBe(2);
    expect((await stripe.paymentIntents.retrieve(intent.id)).amount_received).toBe(4200);
  });

  it("under automatic confirmation, authorizing at the bank succeeds the intent at once", async () => {
    const stripe = emulator.stripe();
    const token = await stripe.testHelpers.confirmationTokens.create({ payment_method_data: { type } });
    const intent = await pay(stripe, token.id, { confirmation_method: "automatic" });
    const page = await openPage(intent.next_action?.redirect_to_url?.url ?? "");
    const back = await press(page.forms.get("Authorize test payment"));
    expect(back.searchParams.get("redirect_status")).toBe("succeeded");
    expect(await stripe.paymentIntents.retrieve(intent.id)).toMatchObject({
      status: "succeeded",
      amount_received: 4200,
    });
    expect(await eventTypes(intent.id)).toEqual([
      "payment_intent.created",
      "payment_intent.requires_action",
      "payment_intent.succeeded",
    ]);
  });

  it("failing at the bank sends the intent back to requires_payment_method with payment_failed", async () => {
    const stripe = emulator.stripe();
    const token = await stripe.testHelpers.confirmationTokens.create({ payment_method_data: { type } });
    const intent = await pay(stripe, token.id);
    const page = await openPage(intent.next_action?.redirect_to_url?.url ?? "");
    const back = await press(page.forms.get("Fail test payment"));
    expect(back.searchParams.get("redirect_status")).toBe("failed");
    const failed = await stripe.paymentIntents.retrieve(intent.id);
    expect(failed).toMatchObject({ status: "requires_payment_method", payment_method: null, amount_received: 0 });
    expect(failed.last_payment_error).toMatchObject({
      code: "payment_intent_authentication_failure",
      payment_method: { type },
    });
    expect(await eventTypes(intent.id)).toEqual([
      "payment_intent.created",
      "payment_intent.requires_action",
      "payment_intent.payment_failed",
    ]);
    const reopened = await openPage(intent.next_action?.redirect_to_url?.url ?? "");
    expect(reopened.html).toContain("no longer waiting for the bank");
  });
});

describe("bank redirects", () => {
  it("a confirm without return_url is refused before any intent exists", async () => {
    const stripe = emulator.stripe();
    const token = await stripe.testHelpers.confirmationTokens.create({ payment_method_data: { type: "ideal" } });
    const error = await rejection(pay(stripe, token.id, { return_url: undefined }));
    expect(error).toMatchObject({ statusCode: 400, code: "parameter_missing", param: "return_url" });
    expect((await stripe.paymentIntents.list()).data).toHaveLength(0);
  });

  it("a token made by the Payment Element still redirects (handleNextAction follows redirect_to_url)", async () => {
    const token = await fetch(`${emulator.url()}/v1/confirmation_tokens`, {
      method: "POST",
      headers: { Authorization: "Bearer pk_test_emulator", "Content-Type": "application/x-www-form-urlencoded" },
      body: "payment_method_data[type]=bancontact",
    }).then((res) => res.json() as Promise<{ id: string; use_stripe_sdk: boolean }>);
    expect(token.use_stripe_sdk).toBe(true);
    const intent = await pay(emulator.stripe(), token.id);
    expect(intent).toMatchObject({ status: "requires_action", next_action: { type: "redirect_to_url" } });
  });

  it("a type the intent does not allow is refused", async () => {
    const stripe = emulator.stripe();
    const token = await stripe.testHelpers.confirmationTokens.create({ payment_method_data: { type: "ideal" } });
    const error = await rejection(pay(stripe, token.id, { allowed_payment_method_types: ["card"] }));
    expect(error.code).toBe("payment_intent_incompatible_payment_method");
  });

  it("the bank page needs the intent's client secret", async () => {
    const stripe = emulator.stripe();
    const token = await stripe.testHelpers.confirmationTokens.create({ payment_method_data: { type: "ideal" } });
    const intent = await pay(stripe, token.id);
    const url = new URL(intent.next_action?.redirect_to_url?.url ?? "");
    url.searchParams.set("client_secret", "pi_x_secret_forged");
    expect((await fetch(url)).status).toBe(404);
    expect((await stripe.paymentIntents.retrieve(intent.id)).status).toBe("requires_action");
  });
});
