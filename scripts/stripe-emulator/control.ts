import { invalidRequest, ok, unrecognizedUrl, type ApiResponse } from "./responses";
import type { State } from "./state";
import { parseWebhookPatch } from "./webhook-config";

/**
 * `/_emulator/*`: the test and demo controls. No API key, because these are
 * not Stripe's API and nothing outside this machine can reach 127.0.0.1.
 */
export function handleControl(
  method: string,
  path: string,
  body: string,
  state: State,
  reset: () => void,
): ApiResponse {
  if (path === "/_emulator/faults" && method === "GET") return ok(state.faults.snapshot());
  if (path === "/_emulator/faults" && method === "POST") {
    const input = parseJson(body);
    if (input === undefined) return invalidRequest("The request body is not valid JSON.");
    const error = state.faults.apply(input);
    return error ? invalidRequest(error) : ok(state.faults.snapshot());
  }
  if (path === "/_emulator/webhooks" && method === "GET") return ok(webhookView(state));
  if (path === "/_emulator/webhooks" && method === "POST") {
    const input = parseJson(body);
    if (input === undefined) return invalidRequest("The request body is not valid JSON.");
    const patch = parseWebhookPatch(input);
    if (typeof patch === "string") return invalidRequest(patch);
    const { webhooks } = state;
    webhooks.config = { ...webhooks.config, ...patch.config };
    webhooks.faults = { ...webhooks.faults, ...patch.faults };
    // Switching reordering off sends what it was holding, in order, rather than keeping it forever.
    if (patch.faults.reorder === null) webhooks.releaseHeld(false);
    return ok(webhookView(state));
  }
  if (path === "/_emulator/reset" && method === "POST") {
    reset();
    return ok({ ok: true });
  }
  return unrecognizedUrl(method, path);
}

function webhookView(state: State) {
  const { webhooks } = state;
  return structuredClone({
    ...webhooks.config,
    faults: webhooks.faults,
    stats: { ...webhooks.stats, pending: webhooks.pending },
  });
}

/** The parsed body, {} for an empty one, undefined when it is not JSON. */
function parseJson(body: string): unknown {
  try {
    return body.trim() === "" ? {} : JSON.parse(body);
  } catch {
    return undefined;
  }
}
