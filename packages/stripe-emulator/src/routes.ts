import type { Ctx, Outcome } from "./context";
import { createForTest, createFromElement, retrieveToken } from "./confirmation-tokens";
import { listEvents, retrieveEvent } from "./event-endpoints";
import type { Params } from "./form";
import { retrievePaymentMethod } from "./payment-methods";
import { cancelIntent, confirmIntent, createIntent, listIntents, retrieveIntent } from "./payment-intents";
import { createRefund, listRefunds, retrieveCharge, retrieveRefund } from "./refunds";
import type { ApiResponse } from "./responses";
import { searchIntents } from "./search";

export type Route =
  | { kind: "read"; run: (ctx: Ctx, params: Params) => ApiResponse }
  /** `create`: a PaymentIntent create, the only request storeCreate500 affects. */
  | {
      kind: "write";
      create?: boolean;
      run: (ctx: Ctx, params: Params) => Outcome;
      publishable?: boolean;
      /** A publishable key may make it too, with the object's client_secret (as Stripe.js does). */
      clientSecret?: boolean;
    };

/** The `/v1` routes the emulator serves; null for anything else (answered like Stripe's unrecognized URL). */
export function matchRoute(method: string, path: string): Route | null {
  const [collection, id, action, ...rest] = path
    .replace(/^\/v1\//, "")
    .split("/")
    .map(safeDecode);
  if (rest.length > 0 || collection === undefined || id === null || action === null) return null;
  const read = (run: (ctx: Ctx, params: Params) => ApiResponse): Route | null =>
    method === "GET" ? { kind: "read", run } : null;
  const write = (run: (ctx: Ctx, params: Params) => Outcome, create = false): Route | null =>
    method === "POST" ? { kind: "write", run, create } : null;

  if (collection === "payment_intents") {
    if (id === undefined) return method === "GET" ? read(listIntents) : write(createIntent, true);
    if (id === "search" && action === undefined) return read(searchIntents);
    if (action === undefined) return read((ctx, params) => retrieveIntent(ctx, id, params));
    if (action === "confirm")
      return method === "POST"
        ? { kind: "write", run: (ctx, params) => confirmIntent(ctx, id, params), clientSecret: true }
        : null;
    if (action === "cancel") return write((ctx, params) => cancelIntent(ctx, id, params));
    return null;
  }
  if (collection === "test_helpers" && id === "confirmation_tokens" && action === undefined)
    return write(createForTest);
  if (action !== undefined) return null;
  if (collection === "confirmation_tokens") {
    if (id === undefined)
      return method === "POST" ? { kind: "write", run: createFromElement, publishable: true } : null;
    return read((ctx, params) => retrieveToken(ctx, id, params));
  }
  if (collection === "refunds") {
    if (id === undefined) return method === "GET" ? read(listRefunds) : write(createRefund);
    return read((ctx, params) => retrieveRefund(ctx, id, params));
  }
  if (collection === "events")
    return id === undefined ? read(listEvents) : read((ctx, params) => retrieveEvent(ctx, id, params));
  if (collection === "payment_methods" && id !== undefined)
    return read((ctx, params) => retrievePaymentMethod(ctx, id, params));
  if (collection === "charges" && id !== undefined) return read((ctx, params) => retrieveCharge(ctx, id, params));
  return null;
}

/** A segment, decoded; null when it is not valid percent-encoding (then no route matches). */
function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
