import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { rejection, useEmulator } from "./test-support";

const emulator = useEmulator();
const RETURN_URL = "http://127.0.0.1:3000/checkout/return?key=attempt-1";
const THREE_DS = [
  "pm_card_threeDSecure2Required",
  "pm_card_authenticationRequired",
  "pm_card_threeDSecureRequiredChargeDeclined",
];

interface PageForm {
  action: string;
  fields: URLSearchParams;
}

/** Fetches the authentication page and reads its forms the way a browser would, keyed by button label. */
async function openPage(url: string): Promise<{ status: number; html: string; forms: Map<string, PageForm> }> {
  const res = await fetch(url);
  const html = await res.text();
  expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  const forms = new Map<string, PageForm>();
  for (const [, action, inner] of html.matchAll(/<form method="post" action="([^"]+)">(.*?)<\/form>/g)) {
    const fields = new URLSearchParams();
    for (const [, name, value] of (inner ?? "").matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
      fields.set(name ?? "", value ?? "");
    const label = /<button type="submit">([^<]+)<\/button>/.exec(inner ?? "")?.[1] ?? "";
    forms.set(label, { action: new URL(action ?? "", url).toString(), fields });
  }
  return { status: res.status, html, forms };
}

/** Presses a button: POSTs its form and returns the redirect the browser would follow. */
async function press(form: PageForm | undefined): Promise<URL> {
  if (!form) throw new Error("no such button on the page");
  const res = await fetch(form.action, { method: "POST", body: form.fields, redirect: "manual" });
  expect(res.status).toBe(303);
  return new URL(res.headers.get("location") ?? "");
}

async function requireAction(paymentMethod: string, amount = 1999): Promise<Stripe.PaymentIntent> {
  const intent = await emulator.stripe().paymentIntents.create({
    amount,
    currency: "eur",
    payment_method: paymentMethod,
    allowed_payment_method_types: ["card"],
    confirm: true,
    return_url: RETURN_URL,
  });
  expect(intent.status).toBe("requires_action");
  return intent;
}

describe("3-D Secure", () => {
  it.each(THREE_DS)(
    "%s with return_url answers requires_action with a redirect to the emulator's page",
    async (paymentMethod) => {
      const intent = await requireAction(paymentMethod);
      expect(intent).toMatchObject({
        payment_method: expect.stringMatching(/^pm_[A-Za-z0-9]{24}$/),
        latest_charge: null,
        amount_received: 0,
        last_payment_error: null,
      });
      expect(intent.client_secret).toMatch(new RegExp(`^${intent.id}_secret_\\w+$`));
      expect(intent.next_action?.type).toBe("redirect_to_url");
      expect(intent.next_action?.redirect_to_url?.return_url).toBe(RETURN_URL);
      expect(intent.next_action?.redirect_to_url?.url).toMatch(
        new RegExp(`^${emulator.url()}/_emulator/3ds/${intent.id}\\?client_secret=`),
      );
      expect((await emulator.faults()).stats).toMatchObject({ authenticationsRequired: 1, charges: 0, declines: 0 });
    },
  );

  it.each(THREE_DS)(
    "%s without return_url answers use_stripe_sdk, which only Stripe.js can handle",
    async (paymentMethod) => {
      const client = emulator.stripe();
      const created = await client.paymentIntents.create({
        amount: 500,
        currency: "usd",
        payment_method: paymentMethod,
        allowed_payment_method_types: ["card"],
      });
      expect(created).toMatchObject({ status: "requires_confirmation", next_action: null });
      const intent = await client.paymentIntents.confirm(created.id); // payment_method comes from create
      expect(intent.status).toBe("requires_action");
      expect(intent.next_action).toMatchObject({
        type: "use_stripe_sdk",
        use_stripe_sdk: { type: "three_d_secure_redirect" },
      });
      expect(intent.next_action?.redirect_to_url).toBeUndefined();
    },
  );

  it("the page shows the amount and both buttons; Complete charges once even when pressed twice", async () => {
    const intent = await requireAction("pm_card_threeDSecure2Required");
    const page = await openPage(intent.next_action?.redirect_to_url?.url ?? "");
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/<h1>[^<]*3D Secure[^<]*<\/h1>/);
    expect(page.html).toContain("€19.99");
    expect([...page.forms.keys()]).toEqual(["Complete authentication", "Fail authentication"]);
    expect(page.html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/); // nothing remote, works offline

    const complete = page.forms.get("Complete authentication");
    const location = await press(complete);
    expect(`${location.origin}${location.pathname}`).toBe("http://127.0.0.1:3000/checkout/return");
    expect(Object.fromEntries(location.searchParams)).toEqual({
      key: "attempt-1",
      payment_intent: intent.id,
      payment_intent_client_secret: intent.client_secret,
      redirect_status: "succeeded",
    });
    const paid = await emulator.stripe().paymentIntents.retrieve(intent.id);
    expect(paid).toMatchObject({
      status: "succeeded",
      amount_received: 1999,
      next_action: null,
      payment_method: expect.stringMatching(/^pm_[A-Za-z0-9]{24}$/),
    });
    expect(paid.latest_charge).toMatch(/^ch_/);

    // The second press (a double click, or the back button) finds it settled and only redirects.
    expect((await press(complete)).searchParams.get("redirect_status")).toBe("succeeded");
    expect((await emulator.faults()).stats).toMatchObject({
      authenticationsRequired: 1,
      authenticationsCompleted: 1,
      charges: 1,
    });
    const after = await openPage(intent.next_action?.redirect_to_url?.url ?? "");
    expect(after.forms.size).toBe(0);
    expect(after.html).toContain("succeeded");
  });

  it("Fail authentication leaves the intent waiting for a new payment method, with Stripe's error code", async () => {
    const intent = await requireAction("pm_card_authenticationRequired");
    const page = await openPage(intent.next_action?.redirect_to_url?.url ?? "");
    const location = await press(page.forms.get("Fail authentication"));
    expect(location.searchParams.get("redirect_status")).toBe("failed");
    expect(location.searchParams.get("payment_intent")).toBe(intent.id);

    const failed = await emulator.stripe().paymentIntents.retrieve(intent.id);
    expect(failed).toMatchObject({
      status: "requires_payment_method",
      payment_method: null,
      latest_charge: null,
      next_action: null,
      last_payment_error: { code: "payment_intent_authentication_failure", type: "invalid_request_error" },
    });
    // Completing afterwards (another tab) changes nothing.
    expect((await press(page.forms.get("Complete authentication"))).searchParams.get("redirect_status")).toBe("failed");
    expect((await emulator.faults()).stats).toMatchObject({
      authenticationsFailed: 1,
      authenticationsCompleted: 0,
      charges: 0,
    });
  });

  it("pm_card_threeDSecureRequiredChargeDeclined is declined after authentication", async () => {
    const intent = await requireAction("pm_card_threeDSecureRequiredChargeDeclined");
    const page = await openPage(intent.next_action?.redirect_to_url?.url ?? "");
    expect((await press(page.forms.get("Complete authentication"))).searchParams.get("redirect_status")).toBe("failed");
    const declined = await emulator.stripe().paymentIntents.retrieve(intent.id);
    expect(declined).toMatchObject({
      status: "requires_payment_method",
      payment_method: null,
      last_payment_error: { code: "card_declined", type: "card_error" },
    });
    expect((await emulator.faults()).stats).toMatchObject({ authenticationsCompleted: 1, charges: 0, declines: 1 });

    // A late confirm without a payment method cannot charge: Stripe cleared it at the decline.
    const late = await rejection(emulator.stripe().paymentIntents.confirm(intent.id));
    expect(late).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(late).toMatchObject({ statusCode: 400, code: "payment_intent_unexpected_state" });
  });

  it("refuses the page without the intent's client secret, and a second confirm while authentication is pending", async () => {
    const intent = await requireAction("pm_card_threeDSecure2Required");
    const url = new URL(intent.next_action?.redirect_to_url?.url ?? "");
    url.searchParams.set("client_secret", "pi_wrong_secret_x");
    expect((await fetch(url)).status).toBe(404);
    const forged = await fetch(url, {
      method: "POST",
      body: new URLSearchParams({ action: "complete", client_secret: "nope" }),
      redirect: "manual",
    });
    expect(forged.status).toBe(404);

    const again = await rejection(emulator.stripe().paymentIntents.confirm(intent.id, { return_url: RETURN_URL }));
    expect(again).toMatchObject({ statusCode: 400, code: "payment_intent_unexpected_state" });
    expect((await emulator.stripe().paymentIntents.retrieve(intent.id)).status).toBe("requires_action");
    expect((await emulator.faults()).stats).toMatchObject({ authenticationsRequired: 1, charges: 0 });
  });

  it("a confirm with return_url after a plain create redirects too, using the payment method set at create", async () => {
    const client = emulator.stripe();
    const created = await client.paymentIntents.create({
      amount: 800,
      currency: "gbp",
      payment_method: "pm_card_threeDSecure2Required",
    });
    const intent = await client.paymentIntents.confirm(created.id, { return_url: RETURN_URL });
    expect(intent).toMatchObject({
      status: "requires_action",
      payment_method: expect.stringMatching(/^pm_[A-Za-z0-9]{24}$/),
      next_action: { type: "redirect_to_url" },
    });
    expect(intent.payment_method).toBe(created.payment_method);
    const page = await openPage(intent.next_action?.redirect_to_url?.url ?? "");
    expect(page.html).toContain("£8.00");
  });

  it("an abandoned authentication cancelled by the reconciler cannot be completed afterwards", async () => {
    const intent = await requireAction("pm_card_threeDSecure2Required");
    const page = await openPage(intent.next_action?.redirect_to_url?.url ?? "");
    const canceled = await emulator.stripe().paymentIntents.cancel(intent.id, { cancellation_reason: "abandoned" });
    expect(canceled).toMatchObject({ status: "canceled", cancellation_reason: "abandoned", next_action: null });

    // The shopper comes back to the still-open tab and presses Complete.
    expect((await press(page.forms.get("Complete authentication"))).searchParams.get("redirect_status")).toBe("failed");
    expect((await emulator.stripe().paymentIntents.retrieve(intent.id)).status).toBe("canceled");
    expect((await emulator.faults()).stats).toMatchObject({
      cancellations: 1,
      authenticationsCompleted: 0,
      charges: 0,
    });
  });
});
