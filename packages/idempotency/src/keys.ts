import { createHash } from "node:crypto";
import type { KeyScope } from "./types";

/**
 * The key as stored and compared: a UUID in lower case. Null when `key` is
 * not a UUID (the caller answers 400 before claiming anything).
 */
export function normaliseKey(key: string): string | null {
  const lower = key.trim().toLowerCase();
  return UUID.test(lower) ? lower : null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A UUID (version 8, SHA-256) derived from what an attempt is — `namespace`,
 * the subject, the endpoint and the client's key — never a random id a
 * service could lose. Every downstream call keyed by it (a payment
 * provider's Idempotency-Key, an order's id) is the very same request when
 * the attempt is retried, retaken, or replayed after its rows were lost.
 */
export function deriveId(namespace: string, scope: KeyScope): string {
  const digest = createHash("sha256")
    .update(`${namespace}\n${scope.subjectId}\n${scope.endpoint}\n${scope.key.toLowerCase()}`)
    .digest();
  digest[6] = (digest[6]! & 0x0f) | 0x80;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The key of one downstream step of an attempt: `${attemptId}:${step}`, the same for every owner of the attempt. */
export function downstreamKey(attemptId: string, step: string): string {
  return `${attemptId}:${step}`;
}
