/**
 * The Next.js App Router adapter: route handlers (and Server Actions) that
 * claim a key before their effect and answer every duplicate from the store.
 * Web-standard Request and Response only, so it runs in any App Router
 * runtime that has a database (the Node.js one).
 */
import type { IdempotencyEngine } from "./engine";
import { fingerprint as fingerprintOf } from "./fingerprint";
import type { Gate } from "./gate";
import { deriveId, downstreamKey, normaliseKey } from "./keys";
import { CONFLICT_CODES, conflictAnswer, DEFAULT_CONFLICT_POLICY, type ConflictPolicy } from "./policy";
import type { ClaimResult, KeyScope, Ownership, StoredResponse } from "./types";

/** `{ error, message, …extra }`, the body of every refusal the adapter writes. */
export function errorResponse(
  status: number,
  error: string,
  message: string,
  extra: Record<string, unknown> = {},
  headers?: HeadersInit,
): Response {
  return Response.json({ error, message, ...extra }, { status, headers });
}

export interface KeyOptions {
  /** Default true: a request without the header is refused 400 `idempotency_key_missing`. */
  required?: boolean;
  /** Default `Idempotency-Key`. */
  header?: string;
  /** What a client without a key is told (the route's own words). */
  missingMessage?: string;
}

/**
 * The request's Idempotency-Key, validated (a UUID) and normalised (lower
 * case) once, here. `key: null` only when the key is optional and absent.
 */
export function readKey(
  request: Request,
  options: KeyOptions = {},
): { ok: true; key: string | null } | { ok: false; response: Response } {
  const header = options.header ?? "Idempotency-Key";
  const value = request.headers.get(header);
  if (value === null || value.trim() === "") {
    if (options.required === false) return { ok: true, key: null };
    return {
      ok: false,
      response: errorResponse(
        400,
        CONFLICT_CODES.missing,
        options.missingMessage ?? `Send an ${header} header (a UUID) with every request.`,
      ),
    };
  }
  const key = normaliseKey(value);
  if (!key)
    return {
      ok: false,
      response: errorResponse(400, CONFLICT_CODES.malformed, `The ${header} header must be a UUID.`),
    };
  return { ok: true, key };
}

/** A stored answer as first sent, byte for byte; `Idempotent-Replayed: true` on a replay. */
export function storedResponse(stored: StoredResponse, replayed: boolean): Response {
  const headers = new Headers(stored.headers);
  headers.set("Content-Type", "application/json");
  if (replayed) headers.set("Idempotent-Replayed", "true");
  return new Response(stored.body, { status: stored.statusCode, headers });
}

/** The answer to a duplicate still running (with `Retry-After`) or a changed body, per `policy`. */
export function conflictResponse(
  claim: Extract<ClaimResult, { kind: "in_progress" | "mismatch" }>,
  policy: ConflictPolicy = DEFAULT_CONFLICT_POLICY,
  message?: string,
): Response {
  const answer = conflictAnswer(claim, policy)!;
  if (answer.retryAfterSeconds === undefined)
    return errorResponse(answer.status, answer.code, message ?? answer.message);
  return errorResponse(
    answer.status,
    answer.code,
    message ?? answer.message,
    { retryAfterSeconds: answer.retryAfterSeconds },
    { "Retry-After": String(answer.retryAfterSeconds) },
  );
}

/** What a wrapped handler is given: the claim is its own until it returns. */
export interface IdempotentContext<Body> {
  body: Body;
  scope: KeyScope;
  owner: Ownership;
  /** An id derived from the attempt (deriveId): the same for every retry, retake and replay. */
  attemptId: string;
  /** The key of one downstream call (`${attemptId}:${step}`), for a provider's Idempotency-Key. */
  keyFor(step: string): string;
  /** Renews the lease before another slow call; false once the claim was lost (stop, write nothing). */
  refresh(): Promise<boolean>;
}

/** What a wrapped handler returns: the answer to store and send. `failed` for a final refusal (4xx). */
export interface IdempotentAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  outcome?: "completed" | "failed";
}

/** What `readIdempotentRequest` needs: who asks, under which key, with which body, for which engine and route. */
export interface RequestOptions<Body> {
  engine: IdempotencyEngine | (() => IdempotencyEngine);
  /** Method and route, e.g. `POST /api/payments`: a key is scoped by it and by the subject. */
  endpoint: string;
  /** The authenticated subject (never from the body); null: 401. */
  subject(request: Request): Promise<string | null> | string | null;
  /** Parses the body; a Response refuses it (nothing is claimed). */
  parse(json: unknown): { ok: true; value: Body } | { ok: false; response: Response };
  key?: KeyOptions;
  policy?: ConflictPolicy;
  /** Reads the body as JSON (e.g. with a size limit); default `request.json()`, a failure 400 `invalid_json`. */
  readJson?(request: Request): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }>;
  /** The answer to a request without a subject; default 401 `unauthenticated`. */
  unauthenticated?(): Response;
  /** The route's own words for a duplicate of a running request and for a changed body. */
  messages?: { inProgress?: string; mismatch?: string };
}

export interface IdempotentOptions<Body, Rule extends string> extends RequestOptions<Body> {
  /** Admission slotted into the claim (gate.ts). */
  gate?(request: Request, scope: KeyScope): Gate<Rule> | undefined;
  /** The answer to a gate's refusal; default 429 `rate_limited` with Retry-After. */
  refused?(rule: Rule, retryAfterSeconds: number): Response;
  /** Namespace of attemptId; default the endpoint. */
  namespace?: string;
}

/** A request ready to claim, or its answer: a refusal, or the answer to a duplicate of an attempt this process runs. */
export type IdempotentRequest<Body> =
  | { ok: true; subject: string; key: string | null; scope: KeyScope; body: Body; fingerprint: string }
  | { ok: false; response: Response; inFlight?: { decision: "in_progress" | "mismatch"; scope: KeyScope } };

/**
 * Subject, key and body, checked in that order, each refusal its own
 * answer; then a duplicate of an attempt this very process is running is
 * answered as the claim would answer it (`engine.inFlight`: `in_progress`
 * for the same body, `mismatch` for another), without a database round
 * trip. `key: null` only when the key is optional and absent (the scope then
 * has a fresh random key). For handlers that claim by themselves;
 * `withIdempotency` starts with it.
 */
export async function readIdempotentRequest<Body>(
  request: Request,
  options: RequestOptions<Body>,
): Promise<IdempotentRequest<Body>> {
  const subject = await options.subject(request);
  if (!subject)
    return {
      ok: false,
      response: options.unauthenticated?.() ?? errorResponse(401, "unauthenticated", "Sign in first."),
    };
  const key = readKey(request, options.key);
  if (!key.ok) return key;
  const json = options.readJson ? await options.readJson(request) : await readJson(request);
  if (!json.ok) return json;
  const body = options.parse(json.value);
  if (!body.ok) return body;
  const scope: KeyScope = { subjectId: subject, endpoint: options.endpoint, key: key.key ?? crypto.randomUUID() };
  const fingerprint = fingerprintOf(body.value);
  const engine = typeof options.engine === "function" ? options.engine() : options.engine;
  const inFlight = key.key === null ? null : engine.inFlight(scope, fingerprint);
  if (inFlight) {
    const message = inFlight.kind === "in_progress" ? options.messages?.inProgress : options.messages?.mismatch;
    return {
      ok: false,
      response: conflictResponse(inFlight, options.policy, message),
      inFlight: { decision: inFlight.kind, scope },
    };
  }
  return { ok: true, subject, key: key.key, scope, body: body.value, fingerprint };
}

async function readJson(request: Request): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  try {
    return { ok: true, value: await request.json() };
  } catch {
    return { ok: false, response: errorResponse(400, "invalid_json", "The body must be JSON.") };
  }
}

/**
 * Wraps a route handler: key, subject, body, claim, then `handler` once per
 * attempt, its answer stored fenced and replayed byte for byte to every
 * retry. A handler that throws releases the claim (the client's retry runs
 * it again, with the same derived keys). Without a key on a route where it
 * is optional, `handler` runs unclaimed, with a fresh random scope.
 */
export function withIdempotency<Body, Rule extends string = string>(
  options: IdempotentOptions<Body, Rule>,
  handler: (context: IdempotentContext<Body>, request: Request) => Promise<IdempotentAnswer>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const read = await readIdempotentRequest(request, options);
    if (!read.ok) return read.response;
    const gate = options.gate;
    return runIdempotent(
      { ...options, gate: gate && ((_unused: Request | null, scope: KeyScope) => gate(request, scope)) },
      { subject: read.subject, key: read.scope.key, body: read.body, request },
      (context) => handler(context, request),
    );
  };
}

/**
 * The same for a Server Action (or any caller without a Request): the
 * subject and the key are given, the answer comes back as a Response the
 * action reads (`status`, `json()`).
 */
export function idempotentAction<Body, Rule extends string = string>(
  options: Omit<IdempotentOptions<Body, Rule>, "subject" | "parse" | "key" | "gate"> & {
    gate?(scope: KeyScope): Gate<Rule> | undefined;
  },
  handler: (context: IdempotentContext<Body>) => Promise<IdempotentAnswer>,
): (input: { subject: string; key: string; body: Body }) => Promise<Response> {
  return async (input) => {
    const key = normaliseKey(input.key);
    if (!key) return errorResponse(400, CONFLICT_CODES.malformed, "The idempotency key must be a UUID.");
    const gate = options.gate;
    return runIdempotent(
      { ...options, gate: gate && ((_unused: Request | null, scope: KeyScope) => gate(scope)) },
      { subject: input.subject, key, body: input.body, request: null },
      handler,
    );
  };
}

async function runIdempotent<Body, Rule extends string>(
  options: {
    engine: IdempotencyEngine | (() => IdempotencyEngine);
    endpoint: string;
    policy?: ConflictPolicy;
    gate?(request: Request | null, scope: KeyScope): Gate<Rule> | undefined;
    refused?(rule: Rule, retryAfterSeconds: number): Response;
    namespace?: string;
  },
  input: { subject: string; key: string; body: Body; request: Request | null },
  handler: (context: IdempotentContext<Body>) => Promise<IdempotentAnswer>,
): Promise<Response> {
  const engine = typeof options.engine === "function" ? options.engine() : options.engine;
  const scope: KeyScope = { subjectId: input.subject, endpoint: options.endpoint, key: input.key };
  const gate = options.gate?.(input.request, scope);
  const claim = await engine.claim<Rule>(scope, fingerprintOf(input.body), gate);
  switch (claim.kind) {
    case "replay":
      return storedResponse(claim.response, true);
    case "in_progress":
    case "mismatch":
      return conflictResponse(claim, options.policy);
    case "refused":
      return (
        options.refused?.(claim.rule, claim.retryAfterSeconds) ??
        errorResponse(
          429,
          "rate_limited",
          "Too many new requests; retrying with the same key later is safe.",
          { retryAfterSeconds: claim.retryAfterSeconds },
          { "Retry-After": String(claim.retryAfterSeconds) },
        )
      );
    case "claimed": {
      const owner = claim.owner;
      const attemptId = deriveId(options.namespace ?? options.endpoint, scope);
      let answer: IdempotentAnswer;
      try {
        answer = await handler({
          body: input.body,
          scope,
          owner,
          attemptId,
          keyFor: (step) => downstreamKey(attemptId, step),
          refresh: () => engine.refresh(owner),
        });
      } catch (err) {
        await engine.release(owner).catch(() => undefined);
        throw err;
      }
      const stored: StoredResponse = {
        statusCode: answer.status,
        body: JSON.stringify(answer.body),
        headers: answer.headers ?? {},
      };
      const outcome = answer.outcome ?? (answer.status < 400 ? "completed" : "failed");
      if (await engine.finish(owner, { status: outcome, response: stored })) return storedResponse(stored, false);
      // Fenced out (presumed dead and retaken): what the new owner stored, or it is still running.
      const current = await engine.find(scope);
      if (current?.response) return storedResponse(current.response, true);
      return conflictResponse({ kind: "in_progress", retryAfterSeconds: 1 }, options.policy);
    }
  }
}
