import { BACKOFF, nextRetryDelay, parseRetryAfter } from "./backoff";
import { isRetryable, RequestFailure, RETRYABLE_STATUSES } from "./request-failure";

/** One attempt's request: always its key, always the same bytes. */
export interface IdempotentRequest {
  url: string;
  key: string;
  bodyJson: string;
  method?: string;
  headers?: Record<string, string>;
}

/** A final answer: anything the server will not answer differently if asked again. */
export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

/**
 * A try gives up after this and is retried with the same key, which the
 * server answers with 409 in milliseconds while the first try still runs. So
 * a slow operation shows up as retries (a visibly alive page) instead of one
 * connection held open for as long as the work takes.
 */
export const REQUEST_TIMEOUT_MS = 5_000;

export interface SendOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** Stops the try in flight and any retry. */
  signal?: AbortSignal;
}

/**
 * One try. A final answer is returned; a lost connection, a timeout, a body
 * cut off, or a status worth retrying (409, 429, 502, 503, 504) is thrown as
 * a RequestFailure carrying the server's Retry-After.
 */
export async function sendOnce(request: IdempotentRequest, options: SendOptions = {}): Promise<Answer> {
  const send = options.fetch ?? fetch;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? REQUEST_TIMEOUT_MS);
  let response: Response;
  let body: unknown;
  try {
    response = await send(request.url, {
      method: request.method ?? "POST",
      headers: { "Content-Type": "application/json", ...request.headers, "Idempotency-Key": request.key },
      body: request.bodyJson,
      credentials: "same-origin",
      signal: options.signal ? AbortSignal.any([timeout, options.signal]) : timeout,
    });
    // Reading the body is part of the exchange: a connection cut mid-body is a lost response too.
    body = await response.json().catch((err: unknown) => (response.ok ? Promise.reject(err) : null));
  } catch (err) {
    throw RequestFailure.network(err);
  }
  const answer = { status: response.status, headers: response.headers, body };
  if (RETRYABLE_STATUSES.has(answer.status) && !isFinalConflict(answer)) throw failureOf(answer);
  return answer;
}

/**
 * A 409 that names a conflict other than `in_progress` (the request itself
 * conflicts with the server's state, e.g. an order already paid by another
 * request): the same key would get it again, so it is an answer for the
 * caller to read, not a reason to retry.
 */
function isFinalConflict(answer: Answer): boolean {
  const code = (answer.body as { error?: unknown } | null)?.error;
  return answer.status === 409 && typeof code === "string" && code !== "in_progress";
}

/** An answer the caller cannot use, as a RequestFailure with the server's `{ error, message }`. */
export function failureOf(answer: Answer): RequestFailure {
  const error = answer.body as { error?: unknown; message?: unknown } | null;
  return new RequestFailure(
    {
      kind: "http",
      status: answer.status,
      code: typeof error?.error === "string" ? error.error : "unexpected_response",
      retryAfterMs: parseRetryAfter(answer.headers.get("retry-after")),
    },
    typeof error?.message === "string" ? error.message : `The server answered HTTP ${answer.status}.`,
  );
}

export interface PollOptions extends SendOptions {
  /** When the attempt began: the retry budget counts from here. */
  startedAt?: number;
  now?: () => number;
  random?: () => number;
  /** A check before every try (a session still the attempt's, say); throw a RequestFailure to stop or retry. */
  beforeEachTry?: () => void | Promise<void>;
  /** Told before each wait: `retry` is 1 for the first retry. */
  onRetry?: (retry: number, failure: RequestFailure) => void;
  sleep?: (ms: number) => Promise<void>;
  /**
   * Instead of backing off after a 409 (the same key still running), waits on
   * the server for the attempt to change, e.g. a status endpoint that answers
   * once the outcome is recorded; resolves true to send again at once, false
   * (or a rejection) to back off as usual. The page then learns an outcome
   * within one status read of the server recording it, however long it took.
   */
  waitForChange?: (request: IdempotentRequest, failure: RequestFailure) => Promise<boolean>;
}

/**
 * Sends the attempt until the server gives a final answer: 409 (still
 * running) and 503/429 with Retry-After mean "ask again later", waited out
 * under the one backoff policy; a network failure is retried the same way.
 * Throws the last failure once the budget is spent, the signal aborts, or a
 * failure is not worth retrying: the caller then asks the server what became
 * of the key, rather than trying a new one.
 */
export async function sendUntilAnswered(request: IdempotentRequest, options: PollOptions = {}): Promise<Answer> {
  const now = options.now ?? Date.now;
  const startedAt = options.startedAt ?? now();
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let retry = 1; ; retry++) {
    try {
      if (options.signal?.aborted) throw RequestFailure.network(options.signal.reason);
      await options.beforeEachTry?.();
      return await sendOnce(request, options);
    } catch (error) {
      if (!isRetryable(error) || options.signal?.aborted) throw error;
      const failure = error as RequestFailure;
      if (failure.status === 409 && options.waitForChange) {
        const waited = await options.waitForChange(request, failure).catch(() => false);
        if (options.signal?.aborted) throw failure;
        if (waited) {
          if (now() - startedAt > BACKOFF.budgetMs) throw failure;
          options.onRetry?.(retry, failure);
          continue;
        }
      }
      const retryAfterMs = failure.retryAfterMs;
      const delay = nextRetryDelay({ retry, elapsedMs: now() - startedAt, retryAfterMs, random });
      if (delay === null) throw failure;
      options.onRetry?.(retry, failure);
      await sleep(delay);
      if (options.signal?.aborted) throw failure;
    }
  }
}
