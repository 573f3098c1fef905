import { deriveId } from "@checkout/idempotency";
import { withIdempotency } from "@checkout/idempotency/next";
import { db, engineDatabase, poolOf } from "@/lib/db";
import { jsonError } from "@/lib/http";
import { operatorOrderRoute } from "@/lib/ops/operator-request";
import { poolTransaction, refundGate } from "@/lib/refunds/ledger";
import {
  OPERATOR_SUBJECT,
  parseRefundRequest,
  REFUND_ENDPOINT,
  runOperatorRefund,
  type RefundRequest,
} from "@/lib/refunds/operator-refund";
import { checkoutDeps, webhookDeps } from "@/lib/services";
import { onRefund } from "@/lib/webhooks/process";

export const dynamic = "force-dynamic";

/**
 * POST /api/ops/orders/{orderId}/refunds: the operator's refund, once per
 * Idempotency-Key, through the package's engine (lib/refunds).
 */
export async function POST(request: Request, { params }: { params: Promise<{ orderId: string }> }) {
  return operatorOrderRoute(request, params, async (orderId) => {
    const deps = checkoutDeps();
    const database = engineDatabase(db());
    // The adapter parses the body before it claims: the gate reserves the amount it parsed.
    let asked: RefundRequest | undefined;
    const handle = withIdempotency(
      {
        engine: deps.idempotency,
        endpoint: REFUND_ENDPOINT,
        subject: () => OPERATOR_SUBJECT,
        parse: (body) => {
          const parsed = parseRefundRequest(orderId, body);
          if (parsed.ok) asked = parsed.value;
          return parsed.ok ? parsed : { ok: false, response: jsonError(400, "invalid_request", parsed.message) };
        },
        // The ledger row's id is the attempt's: the same on every claim of the key (ledger.ts, refundGate).
        gate: (_request, scope) =>
          asked && refundGate(asked.orderId, asked.amountCents, asked.reason, deriveId(REFUND_ENDPOINT, scope)),
      },
      (context) =>
        runOperatorRefund(
          {
            db: database,
            transaction: poolTransaction(poolOf(db())),
            stripe: deps.stripe,
            readStripeRefunds: (paymentIntentId) => onRefund(webhookDeps(), paymentIntentId),
          },
          context,
        ),
    );
    return handle(request);
  });
}
