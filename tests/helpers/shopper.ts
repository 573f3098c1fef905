import { randomUUID } from "node:crypto";
import { sleep } from "@/lib/sleep";

/**
 * A shopper talking to the app over real HTTP, with the session cookie kept
 * by hand (Node's fetch has no cookie jar). Plain fetch sends no Origin
 * header, like curl; pass one explicitly to act as a browser.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON that tests index freely
export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  /** Wall-clock time from sending the request to having read the whole answer. */
  ms: number;
}

export interface CartLine {
  sku: string;
  quantity: number;
}

export type CheckoutBody = { items: CartLine[] } & ({ paymentMethod: string } | { confirmationToken: string });

/** Two Classic Tees (2 × 2500) and an Enamel Mug (1800): 6800 cents. */
export const CART: CartLine[] = [
  { sku: "tee-classic", quantity: 2 },
  { sku: "mug-enamel", quantity: 1 },
];
export const CART_TOTAL_CENTS = 2 * 2500 + 1800;

export function cart(paymentMethod = "pm_card_visa", items: CartLine[] = CART): CheckoutBody {
  return { items: items.map((i) => ({ ...i })), paymentMethod };
}

/** The cart paid with a ConfirmationToken (`ctoken_…`), as the checkout page sends it. */
export function tokenCart(confirmationToken: string, items: CartLine[] = CART): CheckoutBody {
  return { items: items.map((i) => ({ ...i })), confirmationToken };
}

export const newKey = () => randomUUID();

export interface RequestOptions {
  /** Serialised as JSON unless it is already a string or a stream. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Leave out the session cookie even if the shopper has one. */
  anonymous?: boolean;
}

export class Shopper {
  cookie: string | null = null;
  customerId: string | null = null;

  constructor(readonly baseUrl: string) {}

  /** A shopper with a fresh guest session. */
  static async arrive(baseUrl: string): Promise<Shopper> {
    const shopper = new Shopper(baseUrl);
    const answer = await shopper.startSession();
    if (answer.status !== 201)
      throw new Error(`POST /api/session answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return shopper;
  }

  /** POST /api/session; keeps the cookie it sets. */
  async startSession(headers: Record<string, string> = {}): Promise<Answer<{ customerId: string }>> {
    const answer = await this.request<{ customerId: string }>("POST", "/api/session", { headers });
    const setCookie = answer.headers.getSetCookie()[0];
    if (setCookie) this.cookie = setCookie.split(";")[0]!;
    if (answer.status < 300) this.customerId = answer.body.customerId;
    return answer;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as Answer
  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Answer<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookie && !options.anonymous && !("cookie" in lower(headers))) headers.cookie = this.cookie;
    let body: BodyInit | undefined;
    let streaming = false;
    if (options.body instanceof ReadableStream) {
      body = options.body;
      streaming = true;
    } else if (typeof options.body === "string") {
      body = options.body;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
    }
    if (body !== undefined && !("content-type" in lower(headers))) headers["content-type"] = "application/json";
    const started = performance.now();
    const res = await fetch(new URL(path, this.baseUrl), {
      method,
      headers,
      body,
      redirect: "manual",
      ...(streaming ? { duplex: "half" } : {}),
    } as RequestInit);
    const text = await res.text();
    const ms = performance.now() - started;
    let parsed: unknown = text;
    try {
      parsed = text === "" ? null : JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as T, ms };
  }

  /** POST /api/checkout with an Idempotency-Key (null: send none). */
  checkout(key: string | null, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    return this.request("POST", "/api/checkout", {
      body,
      headers: key === null ? headers : { "idempotency-key": key, ...headers },
    });
  }

  /** GET /api/checkout/{key}. */
  attempt(key: string): Promise<Answer> {
    return this.request("GET", `/api/checkout/${encodeURIComponent(key)}`);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as Answer
  order(id: string): Promise<Answer<Record<string, any>>> {
    return this.request("GET", `/api/orders/${id}`);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as Answer
  orders(): Promise<Answer<Array<Record<string, any>>>> {
    return this.request("GET", "/api/orders");
  }
}

function lower(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

export { sleep };

/** Polls `check` until it returns a truthy value, or fails with `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T> | T,
  timeoutMs = 30_000,
  intervalMs = 50,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}
