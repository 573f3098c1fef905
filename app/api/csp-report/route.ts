import { jsonError, rateLimited, readTextBody, requestAddress } from "@/lib/http";
import { observe } from "@/lib/observability";
import { CspLogSample, MAX_CSP_REPORT_BYTES, parseCspReports } from "@/lib/security/csp-report";
import { abuseLimits } from "@/lib/services";

/**
 * POST /api/csp-report: where the pages' Content-Security-Policy sends its
 * violation reports (lib/security/csp-report.ts). Counted per address
 * before the body is read (past the limit, 429 with nothing read or
 * logged), the body bounded, and the violations sampled into the log (a few
 * lines a minute however many arrive).
 */
export async function POST(request: Request) {
  const admitted = await abuseLimits().consume([["csp_report_per_address", requestAddress(request)]]);
  if (!admitted.ok) return rateLimited(admitted.retryAfterSeconds, "Too many CSP reports from this address.");
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/(csp-report|reports\+json|json)\b/i.test(type))
    return jsonError(400, "invalid_request", "Send a CSP report (application/csp-report or application/reports+json).");
  const text = await readTextBody(request, MAX_CSP_REPORT_BYTES);
  if (!text.ok) return text.response;
  let violations;
  try {
    violations = parseCspReports(JSON.parse(text.value));
  } catch {
    violations = null;
  }
  if (!violations) return jsonError(400, "invalid_request", "The body is not a CSP violation report.");
  const global = globalThis as unknown as { checkoutCspLog?: CspLogSample };
  const sample = (global.checkoutCspLog ??= new CspLogSample());
  for (const violation of violations) {
    const { log, droppedBefore } = sample.admit(violation);
    if (droppedBefore > 0) observe("csp_violations_dropped", { count: droppedBefore });
    if (log) observe("csp_violation", { ...violation });
  }
  return new Response(null, { status: 204 });
}
