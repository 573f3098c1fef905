import type { IncomingHttpHeaders } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { authenticate, wrongKind } from "./auth";
import { DEFAULT_API_VERSION, type Ctx, type Outcome } from "./context";
import { expanded } from "./expand";
import { canonicalJson, parseForm, type Params } from "./form";
import {
  idempotencyMismatch,
  invalidRequest,
  keyInUse,
  stripeError,
  unrecognizedUrl,
  type ApiResponse,
} from "./responses";
import { checkPermission, type RestrictedKey } from "./restricted-keys";
import { matchRoute } from "./routes";
import type { State } from "./state";

/** What to do with the connection: answer, or destroy it unanswered (an injected lost response). */
export type Reply = { kind: "send"; status: number; body: string; headers: Record<string, string> } | { kind: "drop" };

export interface ApiRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
  requestId: string;
  state: State;
  /** The restricted key the request was made with; null for an `rk_test_…` never minted; undefined for a secret key. */
  restricted?: RestrictedKey | null | undefined;
  /** `http://host:port` as the caller reached the emulator, for links it hands out. */
  origin: string;
  /** Aborted when the emulator shuts down, to cut injected latency short. */
  shutdown: AbortSignal;
  /** Filled in for the request's log line. */
  note: { idempotencyKey?: string; replayed?: boolean };
}

type Run = (ctx: Ctx, params: Params) => Outcome;

/**
 * The `/v1` pipeline, in Stripe's order: the edge (rate limit, injected
 * failures) before anything else, then authentication, validation of the key,
 * the idempotency claim, latency, and only then the handler that touches the ledger.
 */
export async function handleApi(request: ApiRequest): Promise<Reply> {
  if (request.method === "POST" && request.url.pathname === "/v1/confirmation_tokens") return browserCall(request);
  const { faults } = request.state;
  faults.stats.requests += 1;
  const overloaded = faults.takeRateLimit(Date.now()) ?? faults.takeFailure();
  if (overloaded) return send(overloaded);
  const auth = authenticate(request.headers.authorization);
  if (!auth.ok) return send(auth.response, { "WWW-Authenticate": 'Bearer realm="Stripe"' });
  if (request.restricted === null) return send(unknownRestrictedKey(auth.apiKey));
  const refused = faults.takeRefusal(auth.apiKey);
  if (refused) return send(refused);
  const forbidden = request.restricted && checkPermission(request.restricted, request.method, request.url.pathname);
  if (forbidden) {
    faults.stats.forbidden += 1;
    return send(forbidden);
  }
  const route = matchRoute(request.method, request.url.pathname);
  if (!route) return send(unrecognizedUrl(request.method, request.url.pathname));
  const withClientSecret = route.kind === "write" && route.clientSecret === true && auth.publishable;
  const wrongKey = withClientSecret
    ? null
    : wrongKind(auth.publishable, route.kind === "write" && route.publishable === true);
  if (wrongKey) return send(wrongKey);
  const parsed = parseForm(request.method === "GET" ? request.url.search.slice(1) : request.body);
  if (!parsed.ok) return send(invalidRequest(parsed.message));
  if (route.kind === "read") {
    const answer = route.run(contextFor(request, undefined), parsed.params);
    return send(expanded(answer, parsed.params, request.state.ledger.paymentMethods));
  }
  return write(request, route.run, route.create === true, parsed.params, auth.apiKey, withClientSecret);
}

/**
 * What Stripe.js calls from the shopper's browser (a ConfirmationToken from
 * the typed card): the faults a test arms are the shop's server's weather
 * (its latency, its gate, its lost answers), so they neither delay nor count
 * this call, which happens before the shop is asked to pay.
 */
function browserCall(request: ApiRequest): Reply {
  const auth = authenticate(request.headers.authorization);
  if (!auth.ok) return send(auth.response, { "WWW-Authenticate": 'Bearer realm="Stripe"' });
  const wrongKey = wrongKind(auth.publishable, true);
  if (wrongKey) return send(wrongKey);
  const route = matchRoute(request.method, request.url.pathname);
  const parsed = parseForm(request.body);
  if (!route || route.kind !== "write") return send(unrecognizedUrl(request.method, request.url.pathname));
  if (!parsed.ok) return send(invalidRequest(parsed.message));
  return send(execute(route.run, contextFor(request, undefined), parsed.params).response);
}

async function write(
  request: ApiRequest,
  run: Run,
  isCreate: boolean,
  params: Params,
  apiKey: string,
  publishable = false,
): Promise<Reply> {
  const { idempotency, faults } = request.state;
  const key = headerValue(request.headers["idempotency-key"]);
  const echo: Record<string, string> = key === undefined ? {} : { "Idempotency-Key": key };
  if (key !== undefined) {
    request.note.idempotencyKey = key;
    if (key.length === 0 || key.length > 255) {
      return send(invalidRequest("Idempotency-Key must be between 1 and 255 characters long."), echo);
    }
    const fingerprint = `${request.method} ${request.url.pathname} ${canonicalJson(params)}`;
    const claim = idempotency.claim(apiKey, key, fingerprint, Date.now(), faults.settings.idempotencyKeyTtlMs);
    if (claim.kind === "mismatch") return send(idempotencyMismatch(key), echo);
    if (claim.kind === "in_flight") return send(keyInUse(key), echo);
    if (claim.kind === "replay") {
      faults.stats.replayed += 1;
      request.note.replayed = true;
      const { status, json, requestId } = claim.response;
      return {
        kind: "send",
        status,
        body: json,
        headers: { ...echo, "Idempotent-Replayed": "true", "Original-Request": requestId },
      };
    }
    if (claim.expired) faults.stats.keysExpired += 1;
  }
  const release = () => key !== undefined && idempotency.release(apiKey, key);

  // The key is already claimed, so a duplicate arriving during this wait is answered 409.
  // `delayed` counts each write that waited, for latency, at the gate, or both.
  if (faults.settings.latencyMs > 0 || faults.settings.gate) faults.stats.delayed += 1;
  if (faults.settings.latencyMs > 0) {
    if (!(await pause(faults.settings.latencyMs, request.shutdown))) {
      release();
      return { kind: "drop" }; // the emulator is shutting down before executing anything
    }
  }
  // The gate: held, key claimed, until a test lets it go (an event, not a clock).
  if (!(await faults.passGate(request.shutdown))) {
    release();
    return { kind: "drop" };
  }

  // Stripe's stored 500: nothing happened, yet the key replays the 500 from now on.
  const stored500 = isCreate && key !== undefined ? faults.takeStoreCreate500() : null;
  if (stored500) return finish(request, apiKey, key, { response: stored500, executed: true, charge: null }, echo);

  const lateMs = faults.takeLateExecution();
  if (lateMs !== null) {
    // The caller is told nothing (its connection drops, as when it times out); the request still runs later.
    void pause(lateMs, request.shutdown).then((awake) => {
      if (!awake) return void release();
      faults.stats.lateExecuted += 1;
      finish(request, apiKey, key, execute(run, contextFor(request, key, publishable), params), echo);
    });
    return { kind: "drop" };
  }

  const outcome = execute(run, contextFor(request, key, publishable), params);
  const reply = finish(request, apiKey, key, outcome, echo);
  // The charge is in the ledger and its response is stored: only the caller loses it.
  if (outcome.charge === "succeeded" && faults.takeDrop()) return { kind: "drop" };
  // Executed, events emitted, answer stored: the caller waits for it (a webhook may arrive first).
  if (faults.settings.answerLatencyMs > 0) {
    faults.stats.answersDelayed += 1;
    await pause(faults.settings.answerLatencyMs, request.shutdown);
  }
  return reply;
}

/** Stores an executed outcome for its key (or frees the key) and turns it into a reply. */
function finish(
  request: ApiRequest,
  apiKey: string,
  key: string | undefined,
  outcome: Outcome,
  echo: Record<string, string>,
): Reply {
  const json = JSON.stringify(outcome.response.body);
  if (key !== undefined) {
    const { idempotency } = request.state;
    if (outcome.executed)
      idempotency.complete(apiKey, key, { status: outcome.response.status, json, requestId: request.requestId });
    else idempotency.release(apiKey, key);
  }
  return { kind: "send", status: outcome.response.status, body: json, headers: echo };
}

function execute(run: Run, ctx: Ctx, params: Params): Outcome {
  try {
    const outcome = run(ctx, params);
    return { ...outcome, response: expanded(outcome.response, params, ctx.ledger.paymentMethods) };
  } catch (error) {
    // Unknown how far the handler got, so treat it as executed: Stripe keeps and replays such 500s.
    const message = `Unexpected error in the Stripe emulator: ${error instanceof Error ? error.message : String(error)}`;
    return { response: stripeError(500, { type: "api_error", message }), executed: true, charge: null };
  }
}

function contextFor(request: ApiRequest, key: string | undefined, publishable = false): Ctx {
  const { ledger, events, faults, later } = request.state;
  return {
    ledger,
    events,
    stats: faults.stats,
    settings: faults.settings,
    later,
    request: { id: request.requestId, idempotency_key: key ?? null },
    apiVersion: headerValue(request.headers["stripe-version"]) ?? DEFAULT_API_VERSION,
    origin: request.origin,
    confirmationTokenTtlMs: faults.settings.confirmationTokenTtlMs,
    publishable,
  };
}

/** Sleeps; false when the emulator shut down meanwhile. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

function unknownRestrictedKey(apiKey: string): ApiResponse {
  return stripeError(401, {
    type: "invalid_request_error",
    message: `Invalid API Key provided: ${apiKey.slice(0, 8)}****${apiKey.slice(-4)}. Restricted keys are minted by POST /_emulator/restricted_keys.`,
  });
}

export function send(response: ApiResponse, headers: Record<string, string> = {}): Reply {
  return { kind: "send", status: response.status, body: JSON.stringify(response.body), headers };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
