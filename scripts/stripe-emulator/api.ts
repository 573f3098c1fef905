import type { IncomingHttpHeaders } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { authenticate } from "./auth";
import { canonicalJson, parseForm, type Params } from "./form";
import type { Ledger } from "./ledger";
import { confirmIntent, createIntent, listIntents, retrieveIntent, type Outcome } from "./payment-intents";
import { invalidRequest, stripeError, unrecognizedUrl, type ApiResponse } from "./responses";
import type { State } from "./state";

/** What to do with the connection: answer, or destroy it unanswered (an injected lost response). */
export type Reply = { kind: "send"; status: number; json: string; headers: Record<string, string> } | { kind: "drop" };

export interface ApiRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
  requestId: string;
  state: State;
  /** Aborted when the emulator shuts down, to cut injected latency short. */
  shutdown: AbortSignal;
  /** Filled in for the request's log line. */
  note: { idempotencyKey?: string; replayed?: boolean };
}

type Route =
  | { kind: "read"; run: (ledger: Ledger, params: Params) => ApiResponse }
  | { kind: "write"; run: (ledger: Ledger, params: Params) => Outcome };

/**
 * The `/v1` pipeline, in Stripe's order: the edge (injected failures) before
 * anything else, then authentication, validation of the key, the idempotency
 * claim, latency, and only then the handler that touches the ledger.
 */
export async function handleApi(request: ApiRequest): Promise<Reply> {
  const { faults } = request.state;
  faults.stats.requests += 1;
  const failure = faults.takeFailure();
  if (failure) return send(failure);
  const auth = authenticate(request.headers.authorization);
  if (!auth.ok) return send(auth.response, { "WWW-Authenticate": 'Bearer realm="Stripe"' });
  const route = matchRoute(request.method, request.url.pathname);
  if (!route) return send(unrecognizedUrl(request.method, request.url.pathname));
  const parsed = parseForm(request.method === "GET" ? request.url.search.slice(1) : request.body);
  if (!parsed.ok) return send(invalidRequest(parsed.message));
  if (route.kind === "read") return send(route.run(request.state.ledger, parsed.params));
  return write(request, route.run, parsed.params, auth.apiKey);
}

async function write(
  request: ApiRequest,
  run: (ledger: Ledger, params: Params) => Outcome,
  params: Params,
  apiKey: string,
): Promise<Reply> {
  const { idempotency, faults, ledger } = request.state;
  const key = headerValue(request.headers["idempotency-key"]);
  const echo: Record<string, string> = key === undefined ? {} : { "Idempotency-Key": key };
  if (key !== undefined) {
    request.note.idempotencyKey = key;
    if (key.length === 0 || key.length > 255) {
      return send(invalidRequest("Idempotency-Key must be between 1 and 255 characters long."), echo);
    }
    const fingerprint = `${request.method} ${request.url.pathname} ${canonicalJson(params)}`;
    const claim = idempotency.claim(apiKey, key, fingerprint);
    if (claim.kind === "mismatch") return send(idempotencyMismatch(key), echo);
    if (claim.kind === "in_flight") return send(keyInUse(key), echo);
    if (claim.kind === "replay") {
      faults.stats.replayed += 1;
      request.note.replayed = true;
      const { status, json, requestId } = claim.response;
      return { kind: "send", status, json, headers: { ...echo, "Idempotent-Replayed": "true", "Original-Request": requestId } };
    }
  }

  // The key is already claimed, so a duplicate arriving during this wait is answered 409.
  const latencyMs = faults.settings.latencyMs;
  if (latencyMs > 0) {
    faults.stats.delayed += 1;
    try {
      await sleep(latencyMs, undefined, { signal: request.shutdown });
    } catch {
      if (key !== undefined) idempotency.release(apiKey, key);
      return { kind: "drop" }; // the emulator is shutting down before executing anything
    }
  }

  const outcome = execute(run, ledger, params);
  const json = JSON.stringify(outcome.response.body);
  if (key !== undefined) {
    if (outcome.executed) idempotency.complete(apiKey, key, { status: outcome.response.status, json, requestId: request.requestId });
    else idempotency.release(apiKey, key);
  }
  if (outcome.charge === "succeeded") faults.stats.charges += 1;
  if (outcome.charge === "declined") faults.stats.declines += 1;
  // The charge is in the ledger and its response is stored: only the caller loses it.
  if (outcome.charge === "succeeded" && faults.takeDrop()) return { kind: "drop" };
  return { kind: "send", status: outcome.response.status, json, headers: echo };
}

function execute(run: (ledger: Ledger, params: Params) => Outcome, ledger: Ledger, params: Params): Outcome {
  try {
    return run(ledger, params);
  } catch (error) {
    // Unknown how far the handler got, so treat it as executed: Stripe keeps and replays such 500s.
    const message = `Unexpected error in the Stripe emulator: ${error instanceof Error ? error.message : String(error)}`;
    return { response: stripeError(500, { type: "api_error", message }), executed: true, charge: null };
  }
}

function matchRoute(method: string, path: string): Route | null {
  if (path === "/v1/payment_intents") {
    if (method === "GET") return { kind: "read", run: listIntents };
    if (method === "POST") return { kind: "write", run: createIntent };
    return null;
  }
  const match = /^\/v1\/payment_intents\/([^/]+)(\/confirm)?$/.exec(path);
  const id = match?.[1] === undefined ? undefined : safeDecode(match[1]);
  if (id === undefined) return null;
  if (match?.[2] === undefined && method === "GET") return { kind: "read", run: (ledger, params) => retrieveIntent(ledger, id, params) };
  if (match?.[2] !== undefined && method === "POST") return { kind: "write", run: (ledger, params) => confirmIntent(ledger, id, params) };
  return null;
}

function idempotencyMismatch(key: string): ApiResponse {
  return stripeError(400, {
    type: "idempotency_error",
    message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
  });
}

function keyInUse(key: string): ApiResponse {
  return stripeError(409, {
    type: "idempotency_error",
    code: "idempotency_key_in_use",
    message: `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`,
  });
}

function send(response: ApiResponse, headers: Record<string, string> = {}): Reply {
  return { kind: "send", status: response.status, json: JSON.stringify(response.body), headers };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
