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

export interface IdempotentOptions<Body, Rule extends string> {
  engine: IdempotencyEngine | (() => IdempotencyEngine);
  /** Method and route, e.g. `POST /api/payments`: a key is scoped by it and by the subject. */
  endpoint: string;
  /** The authenticated subject (never from the body); null: 401. */
  subject(request: Request): Promise<string | null> | string | null;
  /** Parses the body; a Response refuses it (nothing is claimed). */
  parse(json: unknown): { ok: true; value: Body } | { ok: false; response: Response };
  key?: KeyOptions;
  policy?: ConflictPolicy;
  /** Admission slotted into the claim (gate.ts). */
  gate?(request: Request, scope: KeyScope): Gate<Rule> | undefined;
  /** The answer to a gate's refusal; default 429 `rate_limited` with Retry-After. */
  refused?(rule: Rule, retryAfterSeconds: number): Response;
  /** Namespace of attemptId; default the endpoint. */
  namespace?: string;
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
    const subject = await options.subject(request);
    if (!subject) return errorResponse(401, "unauthenticated", "Sign in first.");
    const key = readKey(request, options.key);
    if (!key.ok) return key.response;
    let json: unknown;
    try {
      json = await request.json();
    } catch {
      return errorResponse(400, "invalid_json", "The body must be JSON.");
    }
    const body = options.parse(json);
    if (!body.ok) return body.response;
    const gate = options.gate;
    return runIdempotent(
      { ...options, gate: gate && ((_unused: Request | null, scope: KeyScope) => gate(request, scope)) },
      { subject, key: key.key ?? crypto.randomUUID(), body: body.value, request },
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
