import { env } from "@/lib/env";
import { forbiddenOrigin, isForeignOrigin } from "@/lib/http";
import { backToOps, operatorCookieCleared, opsOff } from "@/lib/ops/http";

/** POST /api/ops/sign-out (the sign-out button of /ops): the operator's cookie cleared, back to /ops. */
export function POST(request: Request) {
  if (!env().OPS_TOKEN) return opsOff();
  if (isForeignOrigin(request)) return forbiddenOrigin();
  const response = backToOps(request, "signed_out");
  response.headers.append("Set-Cookie", operatorCookieCleared(request));
  return response;
}
