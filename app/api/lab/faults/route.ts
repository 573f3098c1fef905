import { env } from "@/lib/env";
import { forbiddenOrigin, isForeignOrigin, json, jsonError, readValidJson, unauthenticated } from "@/lib/http";
import { faultPatchSchema } from "@/lib/lab/fault-patch";
import { labOnly } from "@/lib/lab/server/lab-only";
import { emulatorFaults } from "@/lib/lab/server/emulator-faults";
import { observeError } from "@/lib/observability";
import { currentCustomerId } from "@/lib/session";

/**
 * GET/POST /api/lab/faults — DEMO ONLY: the Stripe emulator's faults, set by
 * the lab's scenarios. 404 unless the lab is on (lib/lab/enabled.ts), which
 * needs the local emulator.
 */
export const GET = labOnly(async (request: Request) => forward(request, undefined));
export const POST = labOnly(setFaults);

async function setFaults(request: Request) {
  if (isForeignOrigin(request)) return forbiddenOrigin();
  const patch = await readValidJson(request, faultPatchSchema, "Not a fault the lab can set.");
  if (!patch.ok) return patch.response;
  return forward(request, patch.value);
}

async function forward(request: Request, patch: Parameters<typeof emulatorFaults>[1]): Promise<Response> {
  if (!(await currentCustomerId(request))) return unauthenticated();
  try {
    const answer = await emulatorFaults(env(), patch);
    return json(answer.body, answer.status, { "Cache-Control": "no-store" });
  } catch (err) {
    observeError("lab_faults_error", err);
    return jsonError(503, "unavailable", "The Stripe emulator did not answer.");
  }
}
