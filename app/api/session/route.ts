import { db } from "@/lib/db";
import { isForeignOrigin, json, jsonError } from "@/lib/http";
import { startSession } from "@/lib/session";

export async function POST(request: Request) {
  if (isForeignOrigin(request)) return jsonError(403, "forbidden_origin", "Cross-site requests are not accepted.");
  const { customerId, created } = await startSession(request, db());
  return json({ customerId }, created ? 201 : 200);
}
