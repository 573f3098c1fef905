import { db } from "@/lib/db";
import { forbiddenOrigin, isForeignOrigin, json, rateLimited, requestAddress } from "@/lib/http";
import { abuseLimits } from "@/lib/services";
import { currentCustomerId, startSession } from "@/lib/session";

/** POST /api/session: the current session's customer, or a new guest session (limited per address). */
export async function POST(request: Request) {
  if (isForeignOrigin(request)) return forbiddenOrigin();
  const known = await currentCustomerId(request);
  if (known) return json({ customerId: known }, 200);
  const admitted = await abuseLimits().consume([["session_per_address", requestAddress(request)]]);
  if (!admitted.ok) return rateLimited(admitted.retryAfterSeconds, "Too many new sessions from this address.");
  const { customerId, created } = await startSession(request, db());
  return json({ customerId }, created ? 201 : 200);
}
