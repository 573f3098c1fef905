import { checkoutAttempt } from "@/lib/checkout/attempt";
import { readUntilChanged, requestedWaitMs } from "@/lib/checkout/status-wait";
import { json, jsonError, unauthenticated } from "@/lib/http";
import { checkoutDeps } from "@/lib/services";
import { currentCustomerId } from "@/lib/session";

/**
 * GET /api/checkout/{key} — the state of one attempt of the current customer;
 * with `?wait=<ms>` (at most 4000) it answers as soon as a running attempt
 * stops running, or when the wait ends (lib/checkout/status-wait.ts).
 */
export async function GET(request: Request, ctx: { params: Promise<{ key: string }> }) {
  const customerId = await currentCustomerId(request);
  if (!customerId) return unauthenticated();
  const { key } = await ctx.params;
  const notFound = () => jsonError(404, "not_found", "No checkout attempt with this key for this customer.");
  const attempt = checkoutAttempt(customerId, key);
  if (!attempt) return notFound();
  const waitMs = requestedWaitMs(new URL(request.url).searchParams.get("wait"));
  const { idempotency } = checkoutDeps();
  const state = await readUntilChanged(() => idempotency.find(attempt.scope), { waitMs, signal: request.signal });
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
