/**
 * Stripe's idempotency store, keyed by (API key, Idempotency-Key): two
 * accounts may use the same key for unrelated requests.
 *
 * A key is claimed before the request executes, so a concurrent duplicate
 * sees it in flight (409) instead of executing a second time. Once execution
 * began, the response is kept verbatim and replayed until the key expires
 * (Stripe prunes keys once they are at least 24 hours old; the TTL is a fault
 * setting so tests can watch a key being forgotten).
 */
export interface StoredResponse {
  status: number;
  /** Serialized when stored: later changes to the intent must not leak into a replay. */
  json: string;
  requestId: string;
}

export type Claim =
  | { kind: "claimed"; expired: boolean }
  | { kind: "in_flight" }
  | { kind: "mismatch" }
  | { kind: "replay"; response: StoredResponse };

type Entry = { fingerprint: string; response: StoredResponse | null; createdAt: number };

export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  /** `fingerprint` is method, path and canonical parameters: what "the same request" means. */
  claim(apiKey: string, key: string, fingerprint: string, now: number, ttlMs: number): Claim {
    const id = scopedId(apiKey, key);
    const found = this.entries.get(id);
    // A finished key past its TTL is forgotten; one still executing is not, or its request could run twice at once.
    const expired = found !== undefined && found.response !== null && now - found.createdAt >= ttlMs;
    const entry = expired ? undefined : found;
    if (!entry) {
      this.entries.set(id, { fingerprint, response: null, createdAt: now });
      return { kind: "claimed", expired };
    }
    if (entry.fingerprint !== fingerprint) return { kind: "mismatch" };
    if (!entry.response) return { kind: "in_flight" };
    return { kind: "replay", response: entry.response };
  }

  complete(apiKey: string, key: string, response: StoredResponse): void {
    const entry = this.entries.get(scopedId(apiKey, key));
    if (entry) entry.response = response;
  }

  /** The request never executed (validation failed): like Stripe, forget the key so it can be used again. */
  release(apiKey: string, key: string): void {
    this.entries.delete(scopedId(apiKey, key));
  }

  /** Keys whose request never finished (the emulator stopped under it): forgotten, as if never sent. */
  forgetUnfinished(): void {
    for (const [id, entry] of this.entries) if (entry.response === null) this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }
}

function scopedId(apiKey: string, key: string): string {
  // A NUL cannot occur in an HTTP header value, so the pair cannot collide.
  return `${apiKey}\u0000${key}`;
}
