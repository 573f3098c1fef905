import { checkoutAttempt } from "@/lib/checkout/attempt";
import { json, jsonError, unauthenticated } from "@/lib/http";
import { checkoutDeps } from "@/lib/services";
import { currentCustomerId } from "@/lib/session";

/** GET /api/checkout/{key} — the state of one attempt of the current customer. */
export async function GET(request: Request, ctx: { params: Promise<{ key: string }> }) {
  const customerId = await currentCustomerId(request);
  if (!customerId) return unauthenticated();
  const { key } = await ctx.params;
  const notFound = () => jsonError(404, "not_found", "No checkout attempt with this key for this customer.");
  const attempt = checkoutAttempt(customerId, key);
  if (!attempt) return notFound();
  const state = await checkoutDeps().idempotency.find(attempt.scope);
  if (!state) return notFound();
  return json(
    state.response
      ? {
          status: state.status,
          response: { statusCode: state.response.statusCode, body: JSON.parse(state.response.body) as unknown },
        }
      : { status: state.status },
    200,
    { "Cache-Control": "no-store" },
  );
}
