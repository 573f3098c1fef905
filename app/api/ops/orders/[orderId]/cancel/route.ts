import { withIdempotency } from "@checkout/idempotency/next";
import { db, engineDatabase } from "@/lib/db";
import { env } from "@/lib/env";
import { jsonError } from "@/lib/http";
import { operatorOrderRoute } from "@/lib/ops/operator-request";
import { OPERATOR_SUBJECT } from "@/lib/refunds/operator-refund";
import {
  CANCEL_ENDPOINT,
  cancelGate,
  parseCancelRequest,
  runOperatorCancel,
  type CancelRequest,
} from "@/lib/cancels/operator-cancel";
import { checkoutDeps, webhookDeps } from "@/lib/services";
import { onPaymentIntent } from "@/lib/webhooks/process";

export const dynamic = "force-dynamic";

/**
 * POST /api/ops/orders/{orderId}/cancel: the operator cancels a payment not
 * yet succeeded, once per Idempotency-Key, through the package's engine (lib/cancels).
 */
export async function POST(request: Request, { params }: { params: Promise<{ orderId: string }> }) {
  return operatorOrderRoute(request, params, async (orderId) => {
    const deps = checkoutDeps();
    // The adapter parses the body before it claims: the gate holds the cancel for the order it parsed.
    let asked: CancelRequest | undefined;
    const handle = withIdempotency(
      {
        engine: deps.idempotency,
        endpoint: CANCEL_ENDPOINT,
        subject: () => OPERATOR_SUBJECT,
        parse: (body) => {
          const parsed = parseCancelRequest(orderId, body);
          if (parsed.ok) asked = parsed.value;
          return parsed.ok ? parsed : { ok: false, response: jsonError(400, "invalid_request", parsed.message) };
        },
        gate: () => asked && cancelGate(asked.orderId, asked.reason, env().IDEMPOTENCY_IN_PROGRESS_TTL_MS),
      },
      (context) =>
        runOperatorCancel(
          {
            db: engineDatabase(db()),
            stripe: deps.stripe,
            identity: deps.identity,
            account: (paymentIntentId) => onPaymentIntent(webhookDeps(), paymentIntentId),
          },
          context,
        ),
    );
    return handle(request);
  });
}
