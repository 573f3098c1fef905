import { describe, expect, it } from "vitest";
import { createAttemptStore, mayResend, RESEND_WINDOW_MS } from "./attempt-store";
import { MemoryStorage } from "./memory-storage";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const body = '{"amount":100}';

describe("the attempt store", () => {
  it("gives one UUIDv4 per attempt and keeps it for every try of the same body, across a reload", () => {
    const storage = new MemoryStorage();
    const first = createAttemptStore({ storage, storageKey: "k" }).begin(body);
    expect(first.key).toMatch(UUID_V4);
    const reloaded = createAttemptStore({ storage, storageKey: "k" });
    expect(reloaded.current()).toEqual(first);
    expect(reloaded.begin(body)).toEqual(first);
    expect(reloaded.begin('{"amount":200}').key).not.toBe(first.key);
  });

  it("never resends an attempt the server may have forgotten: an old one gets a new key and is not resumable", () => {
    let now = 0;
    const store = createAttemptStore({ storageKey: "k", now: () => now });
    const first = store.begin(body);
    now = RESEND_WINDOW_MS - 1;
    expect(mayResend(first, now)).toBe(true);
    expect(store.resumable(() => true)).toEqual(first);
    now = RESEND_WINDOW_MS;
    expect(mayResend(first, now)).toBe(false);
    expect(store.resumable(() => true)).toBeNull();
    expect(store.begin(body).key).not.toBe(first.key);
  });

  it("closes only the attempt that ended, and keeps the subject under the field it is told", () => {
    const storage = new MemoryStorage();
    const store = createAttemptStore({ storage, storageKey: "k", subjectField: "customerId" });
    const older = store.begin(body, "cust_1");
    expect(JSON.parse(storage.getItem("k")!)).toMatchObject({ customerId: "cust_1" });
    const newer = store.begin('{"amount":200}', "cust_1");
    store.finish(older.key);
    expect(store.current()).toEqual(newer);
    store.finish(newer.key);
    expect(store.current()).toBeNull();
  });

  it("keeps one key for the page's life when storage refuses writes", () => {
    const refusing = new MemoryStorage();
    refusing.setItem = () => {
      throw new DOMException("quota", "QuotaExceededError");
    };
    const store = createAttemptStore({ storage: refusing, storageKey: "k" });
    const first = store.begin(body);
    expect(store.begin(body).key).toBe(first.key);
  });
});
