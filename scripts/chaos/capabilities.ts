import { listAll } from "./checker/gather";
import { WEBHOOK_SECRET } from "./cluster";

/**
 * What the running system supports, found by asking it rather than assumed:
 * the emulator's fault switches (the keys of GET /_emulator/faults), whether
 * it delivers webhooks and the app receives them, and how the app answers a
 * 3-D Secure card and an unknown payment method. Fault kinds and card kinds
 * are enabled from this, so the soak grows as features land.
 */
export interface Capabilities {
  /** Keys of GET /_emulator/faults (stats left out). */
  emulatorFaults: string[];
  /** The emulator delivers signed webhooks to the app, and the app has the endpoint. */
  webhooks: boolean;
  /** Keys of the emulator's webhook faults (GET /_emulator/webhooks), when webhooks are on. */
  webhookFaults: string[];
  /** Events the provider logged before deliveries to the app began: not the app's to process. */
  eventsBefore: string[];
  /** The app answers a 3-D Secure card 202 requires_action with a redirect URL. */
  threeDSecure: boolean;
  /** The app gives an unknown payment method a final answer (201 or 402), not 503 forever. */
  unknownPaymentMethodSettles: boolean;
  /** The database can be restarted by the soak (the embedded server it started). */
  databaseRestart: boolean;
  /** Customers the probes used: their attempts are not the soak's and the checker leaves them out. */
  probeCustomers: string[];
}

export async function detectCapabilities(options: {
  emulatorUrl: string;
  appUrl: string;
  databaseRestart: boolean;
}): Promise<Capabilities> {
  const faults = (await (await fetch(`${options.emulatorUrl}/_emulator/faults`)).json()) as Record<string, unknown>;
  const probe = await ProbeShopper.arrive(options.appUrl);
  const threeDSecure = await probe.answersWith(
    "pm_card_threeDSecure2Required",
    (status, body) =>
      status === 202 && typeof (body as { nextAction?: { url?: unknown } }).nextAction?.url === "string",
  );
  const unknownPaymentMethodSettles = await probe.answersWith(
    "pm_card_doesNotExist",
    (status) => status === 201 || status === 402,
  );
  const eventsBefore = ((await listAll<{ id: string }>(options.emulatorUrl, "/v1/events")) ?? []).map((e) => e.id);
  const webhooks = await enableWebhooks(options.emulatorUrl, options.appUrl);
  const webhookFaults = webhooks
    ? Object.keys(
        ((await (await fetch(`${options.emulatorUrl}/_emulator/webhooks`)).json()) as { faults?: object }).faults ?? {},
      )
    : [];
  return {
    emulatorFaults: Object.keys(faults).filter((k) => k !== "stats"),
    webhooks,
    webhookFaults,
    eventsBefore,
    threeDSecure,
    unknownPaymentMethodSettles,
    databaseRestart: options.databaseRestart,
    probeCustomers: [probe.customerId],
  };
}

/** Points the emulator's webhooks at the app (through the proxy) if both sides support them. */
async function enableWebhooks(emulatorUrl: string, appUrl: string): Promise<boolean> {
  const endpoint = await fetch(`${appUrl}/api/webhooks/stripe`, {
    method: "POST",
    body: "{}",
    headers: { "content-type": "application/json" },
  });
  if (endpoint.status === 404) return false;
  const configured = await fetch(`${emulatorUrl}/_emulator/webhooks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    // Quick retries, and enough of them to outlast a killed instance or a database restart.
    body: JSON.stringify({
      url: `${appUrl}/api/webhooks/stripe`,
      secret: WEBHOOK_SECRET,
      retryBaseMs: 250,
      maxAttempts: 10,
      timeoutMs: 5_000,
    }),
  });
  return configured.ok;
}

class ProbeShopper {
  private constructor(
    private readonly appUrl: string,
    private readonly cookie: string,
    readonly customerId: string,
  ) {}

  static async arrive(appUrl: string): Promise<ProbeShopper> {
    const response = await fetch(`${appUrl}/api/session`, { method: "POST" });
    const cookie = response.headers.getSetCookie()[0]?.split(";")[0] ?? "";
    const { customerId } = (await response.json()) as { customerId: string };
    return new ProbeShopper(appUrl, cookie, customerId);
  }

  /** One attempt with this card, retried a few times on 409/503: does its answer pass `test`? */
  async answersWith(paymentMethod: string, test: (status: number, body: unknown) => boolean): Promise<boolean> {
    const key = crypto.randomUUID();
    for (let tries = 0; tries < 4; tries++) {
      const response = await fetch(`${this.appUrl}/api/checkout`, {
        method: "POST",
        headers: { cookie: this.cookie, "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify({ items: [{ sku: "tee-classic", quantity: 1 }], paymentMethod }),
      });
      const body: unknown = await response.json().catch(() => null);
      if (response.status !== 409 && response.status !== 503) return test(response.status, body);
      await new Promise((r) => setTimeout(r, 700));
    }
    return false;
  }
}
