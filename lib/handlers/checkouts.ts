import { findCheckout, findLivePayment, priceCheckout } from "@/lib/checkout/checkouts";
import { checkoutItemsSchema } from "@/lib/checkout/request";
import { db } from "@/lib/db";
import {
  forbiddenOrigin,
  invalidRequest,
  isForeignOrigin,
  isUuid,
  json,
  jsonError,
  readValidJson,
  unauthenticated,
} from "@/lib/http";
import { currentCustomerId } from "@/lib/session";
import { z } from "zod";

/**
 * The checkout on the server (docs/contract.md, "Checkouts"): `POST
 * /api/checkouts` prices a cart into a new checkout, `GET
 * /api/checkouts/{id}` reads it with its attempts, `PUT /api/checkouts/{id}`
 * sets its lines while no payment of it is live.
 */
const INVALID = "The checkout is not valid.";
const linesSchema = z.strictObject({ items: checkoutItemsSchema });
const notFound = () => jsonError(404, "not_found", "No checkout with this id for this customer.");
const noStore = { "Cache-Control": "no-store" };

export async function createCheckout(request: Request): Promise<Response> {
  if (isForeignOrigin(request)) return forbiddenOrigin();
  const customerId = await currentCustomerId(request);
  if (!customerId) return unauthenticated();
  const body = await readValidJson(request, linesSchema, INVALID);
  if (!body.ok) return body.response;
  const priced = await priceCheckout(db(), { customerId, checkoutId: null, items: body.value.items });
  if (priced.kind === "checkout")
    return json(priced.checkout, 201, { ...noStore, Location: `/api/checkouts/${priced.checkout.id}` });
  if (priced.kind === "invalid") return invalidRequest(INVALID, priced.issues);
  return notFound();
}

export async function readCheckout(request: Request, id: string): Promise<Response> {
  const customerId = await currentCustomerId(request);
  if (!customerId) return unauthenticated();
  const checkout = isUuid(id) ? await findCheckout(db(), customerId, id.toLowerCase()) : null;
  return checkout ? json(checkout, 200, noStore) : notFound();
}

export async function setCheckoutLines(request: Request, id: string): Promise<Response> {
  if (isForeignOrigin(request)) return forbiddenOrigin();
  const customerId = await currentCustomerId(request);
  if (!customerId) return unauthenticated();
  if (!isUuid(id)) return notFound();
  const body = await readValidJson(request, linesSchema, INVALID);
  if (!body.ok) return body.response;
  const priced = await priceCheckout(db(), { customerId, checkoutId: id.toLowerCase(), items: body.value.items });
  switch (priced.kind) {
    case "checkout":
      return json(priced.checkout, 200, noStore);
    case "invalid":
      return invalidRequest(INVALID, priced.issues);
    case "not_found":
      return notFound();
    case "has_payment": {
      const payment = await findLivePayment(db(), id.toLowerCase());
      return jsonError(
        409,
        "checkout_has_payment",
        "This checkout has a payment; its lines no longer change. Start a new checkout for another cart.",
        { status: payment?.status ?? "in_progress", key: payment?.key ?? null, orderId: payment?.orderId ?? null },
      );
    }
  }
}
