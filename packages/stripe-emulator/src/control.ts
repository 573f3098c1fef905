import { Accounts } from "./accounts";
import { pageContext } from "./authentication-page";
import { settleDue } from "./charging";
import { parsePermissions } from "./restricted-keys";
import { recordHistory } from "./history";
import { invalidRequest, ok, stripeError, unrecognizedUrl, type ApiResponse } from "./responses";
import type { State } from "./state";
import { parseWebhookPatch, type WebhookConfig, type WebhookFaults } from "./webhook-config";
import type { WebhookStats } from "./webhooks";

/** What GET and POST /_emulator/webhooks answer: the endpoint settings, the armed faults and the counters. */
export type WebhooksView = WebhookConfig & { faults: WebhookFaults; stats: WebhookStats & { pending: number } };

/**
 * `/_emulator/*`: the test and demo controls. No API key needed, because these
 * are not Stripe's API and nothing outside this machine can reach 127.0.0.1;
 * an `Authorization: Bearer sk_test_…` names the account of that key
 * (accounts.ts), none the default account.
 */
export function handleControl(
  method: string,
  path: string,
  body: string,
  accounts: Accounts,
  authorization: string | undefined,
  /** The emulator as the caller reached it (for links in events' objects). */
  origin = "",
): ApiResponse {
  const named = Accounts.controlKey(authorization);
  if (!named.ok)
    return stripeError(401, {
      type: "invalid_request_error",
      message:
        "Authorization on /_emulator/* names an account: send Bearer sk_test_… (any test key), or no Authorization for the default account.",
    });
  const state: State = accounts.forKey(named.apiKey);
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
  if (path === "/_emulator/restricted_keys" && method === "POST") {
    const permissions = parsePermissions(parseJson(body));
    if (typeof permissions === "string") return invalidRequest(permissions);
    return ok(accounts.mintRestrictedKey(named.apiKey, permissions));
  }
  if (path === "/_emulator/history" && method === "POST") {
    const recorded = recordHistory(state.ledger, parseJson(body));
    return typeof recorded === "string" ? invalidRequest(recorded) : ok(recorded);
  }
  if (path === "/_emulator/clock" && method === "GET") return ok(clockView(state));
  if (path === "/_emulator/clock" && method === "POST") {
    const input = parseJson(body) as { advanceSeconds?: unknown } | undefined;
    const seconds = input?.advanceSeconds;
    if (typeof seconds !== "number" || !Number.isInteger(seconds) || seconds < 0)
      return invalidRequest('Send { "advanceSeconds": n } with n a whole number of seconds, 0 or more.');
    state.ledger.clockOffsetSeconds += seconds;
    // Settled at once, with their events, so a test that advances the clock only waits for the webhooks.
    const settled = settleDue(pageContext(state, origin));
    return ok({ ...clockView(state), settled });
  }
  if (path === "/_emulator/reset" && method === "POST") {
    accounts.reset(named.apiKey);
    return ok({ ok: true });
  }
  return unrecognizedUrl(method, path);
}

/** The emulator's clock (unix seconds), how far it runs ahead of the wall clock, and the debits still processing. */
function clockView(state: State): { now: number; offsetSeconds: number; processing: number } {
  return {
    now: state.ledger.now(),
    offsetSeconds: state.ledger.clockOffsetSeconds,
    processing: state.ledger.settlements.size,
  };
}

function webhookView(state: State): WebhooksView {
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
