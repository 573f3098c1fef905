import { queryOptions } from "@tanstack/react-query";
import { ApiError } from "./api";
import { CheckoutFailure, isRetryable, parseRetryAfter } from "./checkout-failure";
import { waitForStatusChange } from "./checkout-mutation";
import { sessionQuery } from "./queries";
import type { PaidOrder } from "./types";

/**
 * The shopper is back from 3-D Secure: the return page reports it to the shop
 * (`POST /api/checkout/{key}/return`), which asks the provider and records the
 * outcome. Reporting again — a reload, a second tab — only reads that outcome.
 */
export type ReturnOutcome =
  | { kind: "paid"; order: PaidOrder }
  /** Nothing was charged: authentication failed or was abandoned, or the card was declined after it. */
  | { kind: "failed"; error: string; code: string; message: string }
  /** Authentication is still pending: the shopper came back without finishing it. */
  | { kind: "requires_action"; url: string }
  | { kind: "not_found" };

export const authenticationReturnQuery = (key: string, paymentIntent: string | null) =>
  queryOptions({
    queryKey: ["checkout-return", key, paymentIntent],
    queryFn: async ({ client }) => {
      await client.ensureQueryData(sessionQuery);
      try {
        return await reportReturn(key, paymentIntent);
      } catch (error) {
        // Being settled right now (409): wait on the status endpoint for it to end, then report again at once.
        if (!(error instanceof CheckoutFailure) || error.status !== 409) throw error;
        if (!(await waitForStatusChange({ url: "", key, bodyJson: "" }).catch(() => false))) throw error;
        return reportReturn(key, paymentIntent);
      }
    },
    staleTime: Infinity,
    refetchOnWindowFocus: false,
    // 409 (being settled right now) and 503 are worth asking again, a few times.
    retry: (count, error) => isRetryable(error) && count < 8,
    retryDelay: (count, error) =>
      (error instanceof CheckoutFailure ? error.retryAfterMs : undefined) ?? Math.min(500 * 2 ** count, 4_000),
  });

export async function reportReturn(
  key: string,
  paymentIntent: string | null,
  send: typeof fetch = fetch,
): Promise<ReturnOutcome> {
  let response: Response;
  let body: Record<string, unknown> | null;
  try {
    response = await send(`/api/checkout/${encodeURIComponent(key)}/return`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ paymentIntent }),
      credentials: "same-origin",
      cache: "no-store",
    });
    body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  } catch (err) {
    throw CheckoutFailure.network(err);
  }
  return returnOutcomeOf(response, body);
}

export function returnOutcomeOf(
  response: { status: number; headers: Headers },
  body: Record<string, unknown> | null,
): ReturnOutcome {
  const text = (name: string) => (typeof body?.[name] === "string" ? (body[name] as string) : "");
  switch (response.status) {
    case 201:
      return { kind: "paid", order: body as unknown as PaidOrder };
    case 402:
      return {
        kind: "failed",
        error: text("error"),
        code: text("declineCode") || text("code") || text("error"),
        message: text("message"),
      };
    case 202:
      return { kind: "requires_action", url: String((body?.nextAction as { url?: unknown } | undefined)?.url ?? "") };
    case 404:
      return { kind: "not_found" };
  }
  if (response.status === 401) throw new ApiError(401, "unauthenticated", text("message"));
  throw new CheckoutFailure(
    {
      kind: "http",
      status: response.status,
      code: text("error") || "unexpected_response",
      retryAfterMs: parseRetryAfter(response.headers.get("retry-after")),
    },
    text("message") || `The shop answered HTTP ${response.status}.`,
  );
}

/** The query parameter Stripe adds to the return URL: the PaymentIntent's client secret, which the shop never needs. */
export const CLIENT_SECRET_PARAMETER = "payment_intent_client_secret";

/**
 * The return page's address without the client secret Stripe appended, or
 * null when it has none: read once, then replaced (history.replaceState), so
 * the secret stays neither in the address bar nor in the history, a
 * bookmark or a shared link.
 */
export function addressWithoutClientSecret(href: string): string | null {
  const url = new URL(href);
  if (!url.searchParams.has(CLIENT_SECRET_PARAMETER)) return null;
  url.searchParams.delete(CLIENT_SECRET_PARAMETER);
  return `${url.pathname}${url.search}${url.hash}`;
}
