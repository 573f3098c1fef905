import { env } from "@/lib/env";
import { forbiddenOrigin, isForeignOrigin } from "@/lib/http";
import { isOpsToken, OPERATOR_COOKIE, OPERATOR_TTL_SECONDS, sealOperator } from "@/lib/ops/credential";
import { backToOps, opsOff, readForm } from "@/lib/ops/http";
import { servedOverHttps } from "@/lib/security/headers";

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
  const secure = servedOverHttps(new URL(request.url), request.headers) ? "; Secure" : "";
  const seal = await sealOperator({ name: name.trim().slice(0, 80) }, token);
  response.headers.append(
    "Set-Cookie",
    `${OPERATOR_COOKIE}=${encodeURIComponent(seal)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${OPERATOR_TTL_SECONDS - 60}${secure}`,
  );
  return response;
}

/** DELETE /api/ops/session: signs the operator out. */
export function DELETE() {
  if (!env().OPS_TOKEN) return opsOff();
  return new Response(null, {
    status: 204,
    headers: { "Set-Cookie": `${OPERATOR_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0` },
  });
}
