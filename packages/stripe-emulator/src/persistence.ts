import { existsSync, readFileSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { deserialize, serialize } from "node:v8";
import { Faults } from "./faults";
import { randomId } from "./ids";
import { Later } from "./later";
import type { State } from "./state";
import { WebhookDispatcher } from "./webhooks";

/**
 * The default account's records kept in one file across restarts, as Stripe
 * keeps an account's: its ledger (PaymentIntents, charges, refunds,
 * PaymentMethods, ConfirmationTokens, authentications), its events and its
 * idempotency keys. The emulator's machinery starts afresh: faults, the
 * webhook endpoint (given at start), deliveries and work scheduled for later.
 *
 * The records are written as they are in memory, field by field, in Node's
 * structured serialization: Maps, and one intent held by two indexes, come
 * back as they were, and a record a module adds is kept without this file
 * knowing it. Written whole to a temporary file renamed over the old one, so a
 * stop at any moment leaves the previous snapshot or the new one.
 */
const FORMAT = 1;
const KEPT = ["ledger", "events", "idempotency"] as const;
/** Parts of an account that are not records: never written, left as the running emulator made them. */
const MACHINERY = [WebhookDispatcher, Later, Faults];

export class StateFile {
  private queued: Promise<void> | null = null;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly account: () => State,
  ) {}

  /** Puts the file's records into the account; false when there is no file yet. Throws when it cannot be read. */
  load(): boolean {
    if (!existsSync(this.file)) return false;
    const saved = deserialize(readFileSync(this.file)) as { format?: unknown } & Partial<Record<string, unknown>>;
    if (saved?.format !== FORMAT) throw new Error(`format ${String(saved?.format)}, not ${FORMAT}`);
    const state = this.account();
    for (const part of KEPT) {
      const data = saved[part];
      if (!isPlain(data)) throw new Error(`no ${part}`);
      restoreInto(state[part], data);
    }
    // Their requests ended with the process that ran them: as at Stripe, the key may be sent again.
    state.idempotency.forgetUnfinished();
    return true;
  }

  /** Resolves once a snapshot taken after this call is on disk; calls while one is waiting share it. */
  save(): Promise<void> {
    if (this.queued) return this.queued;
    const next = this.chain.then(() => {
      this.queued = null;
      return this.write();
    });
    this.queued = next;
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async write(): Promise<void> {
    const state = this.account();
    const bytes = serialize({ format: FORMAT, ...Object.fromEntries(KEPT.map((part) => [part, dataOf(state[part])])) });
    await mkdir(path.dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${randomId("", 12)}.tmp`;
    await writeFile(temporary, bytes, { mode: 0o600 });
    await rename(temporary, this.file);
  }
}

/** A record's own fields as data, its parts (instances of the emulator's classes) likewise. */
function dataOf(record: object): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(record)) {
    if (typeof value === "function" || MACHINERY.some((kind) => value instanceof kind)) continue;
    data[field] = isPart(value) ? dataOf(value) : value;
  }
  return data;
}

function restoreInto(record: object, data: Record<string, unknown>): void {
  const fields = record as Record<string, unknown>;
  for (const [field, value] of Object.entries(data)) {
    if (isPart(fields[field]) && isPlain(value)) restoreInto(fields[field], value);
    else fields[field] = value;
  }
}

/** An instance of one of the emulator's classes (a ledger's charge book), not data (an object, Map, array…). */
function isPart(value: unknown): value is object {
  if (value === null || typeof value !== "object") return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype !== Object.prototype && prototype !== null && !BUILT_IN.some((kind) => value instanceof kind);
}

const BUILT_IN = [Map, Set, Array, Date, RegExp, Uint8Array];

function isPlain(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype;
}
