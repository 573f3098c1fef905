import { env } from "@/lib/env";
import { forbiddenOrigin, isForeignOrigin } from "@/lib/http";
import { isOpsToken, operatorCookie, OPERATOR_TTL_SECONDS, sealOperator } from "@/lib/ops/credential";
import { backToOps, operatorCookieCleared, opsOff, readForm } from "@/lib/ops/http";

/** POST /api/ops/session (the sign-in form of /ops): `token` and `name` → the operator's cookie, back to /ops. */
export async function POST(request: Request) {
  const token = env().OPS_TOKEN;
  if (!token) return opsOff();
  if (isForeignOrigin(request)) return forbiddenOrigin();
  const read = await readForm(request);
  if (!read.ok) return read.response;
  const { form } = read;
  const given = form.get("token");
  const name = form.get("name");
  if (typeof given !== "string" || typeof name !== "string" || name.trim() === "" || !isOpsToken(given.trim(), token))
    return backToOps(request, "signin_failed");
  const response = backToOps(request);
  const cookie = operatorCookie(request.headers, new URL(request.url));
  const seal = await sealOperator({ name: name.trim().slice(0, 80) }, token);
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
