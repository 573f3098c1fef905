import { markHandled } from "@/lib/audit/store";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { forbiddenOrigin, isForeignOrigin } from "@/lib/http";
import { backToOps, opsOff, opsUnauthenticated, readForm, requestOperator } from "@/lib/ops/http";

/** POST /api/ops/findings/handled (a form of /ops): `key` and `note`; the signed-in operator is who handled it. */
export async function POST(request: Request) {
  if (!env().OPS_TOKEN) return opsOff();
  if (isForeignOrigin(request)) return forbiddenOrigin();
  const operator = await requestOperator(request);
  if (!operator) return opsUnauthenticated();
  const read = await readForm(request);
  if (!read.ok) return read.response;
  const { form } = read;
  const key = form.get("key");
  const note = form.get("note");
  if (typeof key !== "string" || typeof note !== "string" || note.trim() === "")
    return backToOps(request, "note_missing");
  const marked = await markHandled(db(), key, { who: operator.name, note: note.trim().slice(0, 1000) });
  return backToOps(request, marked ? "handled" : "already_handled");
}
