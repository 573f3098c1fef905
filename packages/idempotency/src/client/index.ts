export {
  createAttemptStore,
  mayResend,
  RESEND_WINDOW_MS,
  tabStorage,
  type AttemptRecord,
  type AttemptStore,
  type AttemptStoreOptions,
} from "./attempt-store";
export { BACKOFF, ceilingMs, nextRetryDelay, parseRetryAfter, type RetryInput } from "./backoff";
export {
  failureOf,
  REQUEST_TIMEOUT_MS,
  sendOnce,
  sendUntilAnswered,
  type Answer,
  type IdempotentRequest,
  type PollOptions,
  type SendOptions,
} from "./idempotent-fetch";
export { MemoryStorage } from "./memory-storage";
export { idempotentMutation, type IdempotentMutationConfig } from "./mutation";
export { isRetryable, RequestFailure, RETRYABLE_STATUSES, type FailureReason } from "./request-failure";
