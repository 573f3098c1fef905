import { env } from "@/lib/env";
import { forbiddenOrigin, isForeignOrigin, requestAddress } from "@/lib/http";
import { observe } from "@/lib/observability";
import { isOpsToken, operatorCookie, OPERATOR_TTL_SECONDS, sealOperator } from "@/lib/ops/credential";
import { backToOps, operatorCookieCleared, opsOff, readForm } from "@/lib/ops/http";
import { abuseLimits } from "@/lib/services";

/** POST /api/ops/session (the sign-in form of /ops): `token` and `name` → the operator's cookie, back to /ops. */
export async function POST(request: Request) {
  const token = env().OPS_TOKEN;
  if (!token) return opsOff();
  if (isForeignOrigin(request)) return forbiddenOrigin();
  const address = requestAddress(request);
  // Counted before the token is compared, right or wrong: guessing OPS_TOKEN gets a few tries a minute per address.
  const admitted = await abuseLimits().consume([["ops_signin_per_address", address]]);
  if (!admitted.ok) {
    observe("ops_signin", { outcome: "throttled", address });
    return backToOps(request, "signin_throttled");
  }
  const read = await readForm(request);
  if (!read.ok) return read.response;
  const { form } = read;
  const given = form.get("token");
  const name = form.get("name");
  const operator = typeof name === "string" ? name.trim().slice(0, 80) : "";
  if (typeof given !== "string" || operator === "" || !isOpsToken(given.trim(), token)) {
    observe("ops_signin", { outcome: "refused", address, operator });
    return backToOps(request, "signin_failed");
  }
  observe("ops_signin", { outcome: "signed_in", address, operator });
  const response = backToOps(request);
  const cookie = operatorCookie(request.headers, new URL(request.url));
  const seal = await sealOperator({ name: operator }, token);
  response.headers.append(
    "Set-Cookie",
    `${cookie.name}=${encodeURIComponent(seal)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${OPERATOR_TTL_SECONDS - 60}${cookie.secure ? "; Secure" : ""}`,
  );
  return response;
}

/** DELETE /api/ops/session: signs the operator out. */
export function DELETE(request: Request) {
  if (!env().OPS_TOKEN) return opsOff();
  return new Response(null, { status: 204, headers: { "Set-Cookie": operatorCookieCleared(request) } });
}
