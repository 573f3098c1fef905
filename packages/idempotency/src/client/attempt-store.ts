import { MemoryStorage } from "./memory-storage";

/**
 * One attempt: the exact request body and the one Idempotency-Key that pays
 * for it, kept (per tab) so re-clicks, retries and a reload all send the same
 * key with the same bytes, and the server can answer them as one.
 */
export interface AttemptRecord {
  /** A UUIDv4, made when the attempt began. */
  key: string;
  /** The exact request body, sent verbatim on every try. */
  bodyJson: string;
  createdAt: number;
  /**
   * Whom the key is scoped to on the server (a customer, an account), when
   * known: sent under another subject it would be a new operation, so the
   * caller never sends it under another.
   */
  subject?: string;
}

/**
 * An attempt older than this is never sent again on its own: a server keeps
 * finished keys for a limited time (this engine: 24 h at least), and a key it
 * has forgotten is a new operation. An old attempt is only read; doing it
 * again takes the user's say-so, and a new key.
 */
export const RESEND_WINDOW_MS = 60 * 60 * 1000;

/** Young enough to be sent again without asking the server first. */
export function mayResend(attempt: AttemptRecord, now = Date.now(), windowMs = RESEND_WINDOW_MS): boolean {
  return now - attempt.createdAt < windowMs;
}

export interface AttemptStore {
  /** The open attempt: begun, and no definitive outcome known yet. */
  current(): AttemptRecord | null;
  /** The open attempt if it is for exactly this body and young enough to resend; else a new attempt (new key) replaces it. */
  begin(bodyJson: string, subject?: string): AttemptRecord;
  /** The open attempt if `matches` accepts it and it is young enough to resend, else null. */
  resumable(matches: (open: AttemptRecord) => boolean): AttemptRecord | null;
  /** Closes the attempt after a definitive outcome, so the next one gets a new key. */
  finish(key: string): void;
}

export interface AttemptStoreOptions {
  /** Where the attempt lives: sessionStorage survives a reload and stays in its tab. Default: memory. */
  storage?: Storage;
  /** The storage item's name. */
  storageKey: string;
  /** The stored field that holds `subject` (a store written by an earlier version may name it otherwise). */
  subjectField?: string;
  newKey?: () => string;
  now?: () => number;
  resendWindowMs?: number;
}

export function createAttemptStore(options: AttemptStoreOptions): AttemptStore {
  const { storageKey, subjectField = "subject", resendWindowMs = RESEND_WINDOW_MS } = options;
  const newKey = options.newKey ?? (() => crypto.randomUUID());
  const now = options.now ?? Date.now;
  // A browser that refuses to store (quota, disabled storage) would otherwise
  // make every press look like a first press, with a new key each time.
  let backing = options.storage ?? new MemoryStorage();
  const write = (value: string) => {
    try {
      backing.setItem(storageKey, value);
    } catch {
      backing = new MemoryStorage();
      backing.setItem(storageKey, value);
    }
  };
  const current = () =>
    parseAttempt(
      safely(() => backing.getItem(storageKey)),
      subjectField,
    );
  const young = (attempt: AttemptRecord) => mayResend(attempt, now(), resendWindowMs);
  return {
    current,
    begin(bodyJson, subject) {
      const open = current();
      if (open?.bodyJson === bodyJson && young(open)) return open;
      const attempt: AttemptRecord = { key: newKey(), bodyJson, createdAt: now(), ...(subject ? { subject } : {}) };
      const { subject: _, ...stored } = attempt;
      write(JSON.stringify({ ...stored, ...(subject ? { [subjectField]: subject } : {}) }));
      return attempt;
    },
    resumable(matches) {
      const open = current();
      return open && young(open) && matches(open) ? open : null;
    },
    finish(key) {
      // Only the attempt that ended: a late outcome of an older one must not close a newer one.
      if (current()?.key === key) safely(() => backing.removeItem(storageKey));
    },
  };
}

/** The tab's sessionStorage, or memory where there is none (a server render) or it is blocked. */
export function tabStorage(): Storage {
  try {
    const storage = window.sessionStorage;
    storage.getItem("");
    return storage;
  } catch {
    return new MemoryStorage();
  }
}

function parseAttempt(raw: string | null, subjectField: string): AttemptRecord | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Record<string, unknown>;
    const { key, bodyJson, createdAt } = value;
    if (typeof key !== "string" || typeof bodyJson !== "string" || typeof createdAt !== "number") return null;
    JSON.parse(bodyJson);
    const subject = value[subjectField];
    return { key, bodyJson, createdAt, ...(typeof subject === "string" ? { subject } : {}) };
  } catch {
    return null; // written by another version, or edited by hand: start afresh
  }
}

function safely<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch {
    return null; // storage disabled: reads as "no open attempt"
  }
}
