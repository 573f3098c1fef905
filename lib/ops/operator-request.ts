import "server-only";
import { hasBearerToken } from "../bearer";
import { env } from "../env";
import { isForeignOrigin } from "../http";
import { requestOperator } from "./http";

/**
 * Whether a request to the operator's API carries the operator's credential:
 * `Authorization: Bearer <OPS_TOKEN>`, or the /ops sign-in cookie on a
 * request from the shop's own origin (a cookie alone would let another site
 * post in the operator's name).
 */
export async function isOperatorRequest(request: Request): Promise<boolean> {
  const token = env().OPS_TOKEN;
  if (!token) return false;
  if (hasBearerToken(request, token)) return true;
  if (request.method !== "GET" && (request.headers.get("origin") === null || isForeignOrigin(request))) return false;
  return (await requestOperator(request)) !== null;
}
