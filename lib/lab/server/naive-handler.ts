import { checkoutRequestSchema, INVALID_CHECKOUT } from "@/lib/checkout/request";
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
import { labTagOf, traceLabRequest } from "@/lib/lab/server/lab-trace";
import { naiveCheckout } from "@/lib/lab/server/naive-checkout";
import { observe } from "@/lib/observability";
import { checkoutDeps } from "@/lib/services";
import { currentCustomerId } from "@/lib/session";

/**
 * POST /api/lab/naive-checkout — DEMO ONLY, no idempotency; 404 unless the
 * lab is on (lib/lab/enabled.ts). Served by its route and by the lab's lossy
 * route (/api/lab/lose-response).
 */
export async function handleNaiveCheckout(request: Request): Promise<Response> {
  return traceLabRequest(request, "naive", () => handle(request));
}

async function handle(request: Request): Promise<Response> {
  if (isForeignOrigin(request)) return forbiddenOrigin();
  const customerId = await currentCustomerId(request);
  if (!customerId) return unauthenticated();
  const body = await readValidJson(request, checkoutRequestSchema, INVALID_CHECKOUT);
  if (!body.ok) return body.response;
  const { prisma, stripe, identity } = checkoutDeps();
  const result = await naiveCheckout(
    { prisma, stripe, log: observe, identity }, // logged and counted like the real checkout's payments
    {
      customerId,
      body: body.value,
      labRun: labTagOf(request.headers)?.runId,
      attemptKey: uuidOrUndefined(request.headers.get("idempotency-key")),
    },
  );
  switch (result.kind) {
    case "paid":
      return json(
        {
          orderId: result.orderId,
          status: "paid",
          amountCents: result.amountCents,
          currency: result.currency,
          paymentIntentId: result.paymentIntentId,
        },
        201,
      );
    case "declined":
      return jsonError(402, "card_declined", result.message, {
        declineCode: result.declineCode,
        orderId: result.orderId,
      });
    case "failed":
      return jsonError(500, "payment_failed", result.message, { orderId: result.orderId });
    case "invalid":
      return invalidRequest(INVALID_CHECKOUT, result.issues);
  }
}

/** The client's Idempotency-Key for the PaymentIntent's metadata, if it is a UUID (as the real checkout requires). */
function uuidOrUndefined(header: string | null): string | undefined {
  const key = header?.trim().toLowerCase();
  return key && isUuid(key) ? key : undefined;
}
