import type { APIRequestContext } from "@playwright/test";

/**
 * The shop's own HTTP API (docs/contract.md §1–§2), through a Playwright
 * request context: its cookie jar keeps the guest session, as a browser's
 * would, and a browser context's `request` shares the browser's session.
 */
export class Shop {
  constructor(readonly request: APIRequestContext) {}

  async startSession(): Promise<void> {
    const answer = await this.request.post("/api/session");
    if (answer.status() !== 201 && answer.status() !== 200)
      throw new JourneyFailure(`POST /api/session answered ${answer.status()}: ${await answer.text()}`);
  }

  /** The catalogue's currency (its first product's). */
  async currency(): Promise<string> {
    const answer = await this.request.get("/api/products");
    const products = (await json(answer)) as Array<{ currency?: string }>;
    return Array.isArray(products) ? (products[0]?.currency ?? "") : "";
  }

  /** The first product of the catalogue, once: a cart the shop prices itself. */
  async oneItem(): Promise<Array<{ sku: string; quantity: number }>> {
    const answer = await this.request.get("/api/products");
    const products = (await json(answer)) as Array<{ sku: string }>;
    if (answer.status() !== 200 || !Array.isArray(products) || !products[0])
      throw new JourneyFailure(`GET /api/products answered ${answer.status()} with no product to buy`);
    return [{ sku: products[0].sku, quantity: 1 }];
  }

  async checkout(key: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const answer = await this.request.post("/api/checkout", {
      headers: { "Idempotency-Key": key, ...headers },
      data: body,
    });
    const text = await answer.text();
    return {
      status: answer.status(),
      replayed: answer.headers()["idempotent-replayed"] === "true",
      text,
      body: parse(text),
    };
  }

  /** GET /api/checkout/{key}: the attempt's state and its stored answer. */
  async attempt(key: string): Promise<{ status: string; response?: { statusCode: number; body: Body } }> {
    const answer = await this.request.get(`/api/checkout/${encodeURIComponent(key)}`);
    if (answer.status() !== 200)
      throw new JourneyFailure(`GET /api/checkout/${key} answered ${answer.status()}: ${await answer.text()}`);
    return (await json(answer)) as { status: string; response?: { statusCode: number; body: Body } };
  }

  async order(id: string): Promise<Order> {
    const answer = await this.request.get(`/api/orders/${encodeURIComponent(id)}`);
    if (answer.status() !== 200)
      throw new JourneyFailure(`GET /api/orders/${id} answered ${answer.status()}: ${await answer.text()}`);
    return (await json(answer)) as Order;
  }

  async orders(): Promise<Order[]> {
    const answer = await this.request.get("/api/orders");
    if (answer.status() !== 200) throw new JourneyFailure(`GET /api/orders answered ${answer.status()}`);
    return (await json(answer)) as Order[];
  }
}

/** A journey that did not go as the contract says, with the reason to print. */
export class JourneyFailure extends Error {}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the shop's JSON answers, read field by field
export type Body = Record<string, any>;

export interface Answer {
  status: number;
  replayed: boolean;
  text: string;
  body: Body;
}

export interface Order {
  id: string;
  status: "pending" | "processing" | "paid" | "failed";
  amountCents: number;
  currency: string;
  paymentIntentId: string | null;
  refundedAt: string | null;
  refundReason: string | null;
}

/** `201 paid`, `402 card_declined`, `503 payment_unavailable`: how an answer is named in a reason. */
export function describe(answer: Answer): string {
  const code = answer.body.error ?? answer.body.status;
  return `${answer.status}${typeof code === "string" ? ` ${code}` : ""}`;
}

async function json(answer: { text(): Promise<string> }): Promise<unknown> {
  return parse(await answer.text());
}

function parse(text: string): Body {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" ? (value as Body) : {};
  } catch {
    return {};
  }
}
