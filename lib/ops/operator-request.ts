import "server-only";
import { hasBearerToken } from "../bearer";
import { env } from "../env";
import { isForeignOrigin, jsonError } from "../http";
import { isUuid } from "../uuid";
import { opsOff, opsUnauthenticated, requestOperator } from "./http";

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

/** 404 for an order the shop does not have. */
export const noOrder = (orderId: string) =>
  jsonError(404, "not_found", `No order ${orderId}.`, {}, { "Cache-Control": "no-store" });

/**
 * An operator's route on one order: 404 while OPS_TOKEN is unset, 401
 * without the operator's credential, 404 for an id that cannot be an order's.
 */
export async function operatorOrderRoute(
  request: Request,
  params: Promise<{ orderId: string }>,
  handle: (orderId: string) => Promise<Response>,
): Promise<Response> {
  if (!env().OPS_TOKEN) return opsOff();
  if (!(await isOperatorRequest(request))) return opsUnauthenticated();
  const { orderId } = await params;
  return isUuid(orderId) ? handle(orderId) : noOrder(orderId);
}
