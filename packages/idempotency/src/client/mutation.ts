import type { MutationFunctionContext, MutationKey, MutationOptions } from "@tanstack/query-core";
import type { AttemptRecord } from "./attempt-store";
import { sendUntilAnswered, type Answer, type PollOptions } from "./idempotent-fetch";

export interface IdempotentMutationConfig<TData, TVariables extends AttemptRecord> {
  mutationKey: MutationKey;
  /** Where the attempt is sent (POST, its key in Idempotency-Key, its body verbatim). */
  url: string;
  /** A final answer as the caller's result; throw for an answer it cannot use. */
  parse: (answer: Answer) => TData;
  /** Checked before every try, with the mutation's QueryClient at hand (see PollOptions.beforeEachTry). */
  beforeEachTry?: (attempt: TVariables, context: MutationFunctionContext) => void | Promise<void>;
  /** How the tries are sent and waited for: fetch, signal, onRetry, startedAt, random. */
  poll?: Omit<PollOptions, "beforeEachTry">;
}

/**
 * A TanStack Query mutation over `sendUntilAnswered`: its variables are the
 * attempt, so `mutate(attempt)` sends that attempt's key and bytes until a
 * final answer. TanStack's own retries are off — the fetch already waits out
 * 409/429/503 under the backoff policy, and retrying on top would multiply
 * the tries — and so is its offline pause: a lost network is a retry like any
 * other. Usable with `useMutation`, `mutationOptions` and `MutationObserver`.
 */
export function idempotentMutation<TData, TVariables extends AttemptRecord = AttemptRecord>(
  config: IdempotentMutationConfig<TData, TVariables>,
) {
  return {
    mutationKey: config.mutationKey,
    mutationFn: async (attempt: TVariables, context: MutationFunctionContext): Promise<TData> => {
      const answer = await sendUntilAnswered(
        { url: config.url, key: attempt.key, bodyJson: attempt.bodyJson },
        { ...config.poll, beforeEachTry: () => config.beforeEachTry?.(attempt, context) },
      );
      return config.parse(answer);
    },
    retry: false,
    networkMode: "always",
  } satisfies MutationOptions<TData, Error, TVariables>;
}
