import { db } from "@/lib/db";
import { forbiddenOrigin, isForeignOrigin, json } from "@/lib/http";
import { startSession } from "@/lib/session";

export async function POST(request: Request) {
  if (isForeignOrigin(request)) return forbiddenOrigin();
  const { customerId, created } = await startSession(request, db());
  return json({ customerId }, created ? 201 : 200);
}
