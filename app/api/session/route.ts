import { db } from "@/lib/db";
import { forbiddenOrigin, isForeignOrigin, json, jsonError, rateLimited, requestAddress } from "@/lib/http";
import { abuseLimits } from "@/lib/services";
import { currentCustomerId, startSession } from "@/lib/session";

/** POST /api/session: the current session's customer, or a new guest session (limited per address). */
export async function POST(request: Request) {
  if (isForeignOrigin(request)) return forbiddenOrigin();
  const known = await currentCustomerId(request);
  if (known) return json({ customerId: known }, 200);
  const admitted = await abuseLimits().consume([["session_per_address", requestAddress(request)]]);
  // A limit that cannot count refuses new sessions (503) rather than switch itself off; known sessions answered above.
  if (!admitted.ok && admitted.unavailable)
    return jsonError(
      503,
      "unavailable",
      "The shop cannot start new sessions right now; try again shortly.",
      { retryAfterSeconds: admitted.retryAfterSeconds },
      { "Retry-After": String(admitted.retryAfterSeconds) },
    );
  if (!admitted.ok) return rateLimited(admitted.retryAfterSeconds, "Too many new sessions from this address.");
  const { customerId, created } = await startSession(request, db());
  return json({ customerId }, created ? 201 : 200);
}
