import { describe, expect, it } from "vitest";
import { ATTEMPT_STORAGE_KEY, bodyOf, createAttemptStore, mayResend, RESEND_WINDOW_MS } from "./attempt-store";
import { MemoryStorage } from "@checkout/idempotency/client";

const cart = {
  items: [
    { sku: "tee-classic", quantity: 2 },
    { sku: "mug-enamel", quantity: 1 },
  ],
  paymentMethod: "pm_card_visa",
};
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("attempt store", () => {
  it("starts with no open attempt", () => {
    expect(createAttemptStore(new MemoryStorage()).current()).toBeNull();
  });

  it("gives one UUIDv4 key per attempt and keeps it for every press with the same cart and card", () => {
    const store = createAttemptStore(new MemoryStorage());
    const first = store.begin(cart);
    expect(first.key).toMatch(UUID_V4);
    expect(store.begin(cart)).toEqual(first);
    expect(store.begin({ ...cart, items: [...cart.items].reverse() }).key).toBe(first.key);
    expect(store.current()).toEqual(first);
  });

  it("resumes the same attempt, byte for byte, after a reload (a new store over the same storage)", () => {
    const storage = new MemoryStorage();
    const before = createAttemptStore(storage).begin(cart);
    const after = createAttemptStore(storage);
    expect(after.current()).toEqual(before);
    expect(after.current()?.bodyJson).toBe(before.bodyJson);
    expect(bodyOf(after.current()!)).toEqual({
      items: [
        { sku: "mug-enamel", quantity: 1 },
        { sku: "tee-classic", quantity: 2 },
      ],
      paymentMethod: "pm_card_visa",
    });
  });

  it("makes a new key when the cart or the card changes", () => {
    const store = createAttemptStore(new MemoryStorage());
    const first = store.begin(cart);
    const moreTees = store.begin({
      ...cart,
      items: [
        { sku: "tee-classic", quantity: 3 },
        { sku: "mug-enamel", quantity: 1 },
      ],
    });
    expect(moreTees.key).not.toBe(first.key);
    const otherCard = store.begin({ ...cart, paymentMethod: "pm_card_chargeDeclined" });
    expect(otherCard.key).not.toBe(moreTees.key);
    expect(store.current()).toEqual(otherCard);
  });

  it("makes a new key after a definitive outcome, even for the same cart", () => {
    const store = createAttemptStore(new MemoryStorage());
    const declined = store.begin(cart);
    store.finish(declined.key);
    expect(store.current()).toBeNull();
    expect(store.begin(cart).key).not.toBe(declined.key);
  });

  it("ignores the late outcome of an older attempt", () => {
    const store = createAttemptStore(new MemoryStorage());
    const old = store.begin(cart);
    const open = store.begin({ ...cart, paymentMethod: "pm_card_chargeDeclined" });
    store.finish(old.key);
    expect(store.current()).toEqual(open);
  });

  it("treats a corrupt stored value as no attempt", () => {
    const storage = new MemoryStorage();
    storage.setItem(ATTEMPT_STORAGE_KEY, "{not json");
    expect(createAttemptStore(storage).current()).toBeNull();
    storage.setItem(ATTEMPT_STORAGE_KEY, JSON.stringify({ key: "k" }));
    expect(createAttemptStore(storage).current()).toBeNull();
  });

  it("keeps one key for the page's life when the browser refuses to store", () => {
    const refusing = new MemoryStorage();
    refusing.setItem = () => {
      throw new DOMException("quota", "QuotaExceededError");
    };
    const store = createAttemptStore(refusing);
    const first = store.begin(cart);
    expect(store.begin(cart).key).toBe(first.key);
  });

  it("sends only the fields the server reads", () => {
    const store = createAttemptStore(new MemoryStorage());
    const noisy = {
      items: [{ sku: "tee-classic", quantity: 1, name: "Classic Tee", priceCents: 1 }],
      paymentMethod: "pm_card_visa",
    };
    expect(store.begin(noisy).bodyJson).toBe(
      '{"items":[{"sku":"tee-classic","quantity":1}],"paymentMethod":"pm_card_visa"}',
    );
  });

  it("sends an attempt again by itself only while it is younger than an hour", () => {
    const attempt = createAttemptStore(new MemoryStorage(), undefined, () => 1_000_000).begin(cart);
    expect(RESEND_WINDOW_MS).toBe(60 * 60 * 1000);
    expect(mayResend(attempt, 1_000_000 + RESEND_WINDOW_MS - 1)).toBe(true);
    expect(mayResend(attempt, 1_000_000 + RESEND_WINDOW_MS)).toBe(false);
    expect(mayResend(attempt, 1_000_000 + 2 * RESEND_WINDOW_MS)).toBe(false);
  });

  it("never reuses an attempt older than an hour: the same cart pressed again gets a new key", () => {
    const storage = new MemoryStorage();
    let now = 5_000_000;
    const old = createAttemptStore(storage, undefined, () => now).begin(cart);
    now += 2 * RESEND_WINDOW_MS; // a tab restored two hours later
    const restored = createAttemptStore(storage, undefined, () => now);
    expect(restored.current()).toEqual(old); // still there, to be asked about
    const fresh = restored.begin(cart);
    expect(fresh.key).not.toBe(old.key);
    expect(fresh.createdAt).toBe(now);
    expect(restored.current()).toEqual(fresh);
  });

  it("keeps the key for the same cart just under an hour", () => {
    let now = 5_000_000;
    const store = createAttemptStore(new MemoryStorage(), undefined, () => now);
    const first = store.begin(cart);
    now += RESEND_WINDOW_MS - 1;
    expect(store.begin(cart).key).toBe(first.key);
  });

  it("remembers the customer the attempt was begun for, across a reload", () => {
    const storage = new MemoryStorage();
    const begun = createAttemptStore(storage).begin(cart, "cust_1");
    expect(begun.subject).toBe("cust_1");
    expect(createAttemptStore(storage).current()?.subject).toBe("cust_1");
    // Stored under the name earlier versions gave it, so an attempt open across an upgrade keeps its customer.
    expect(JSON.parse(storage.getItem(ATTEMPT_STORAGE_KEY)!)).toMatchObject({ customerId: "cust_1" });
    expect(createAttemptStore(new MemoryStorage()).begin(cart)).not.toHaveProperty("subject");
  });
});

describe("an attempt paid with a ConfirmationToken", () => {
  it("is resumed by a press for the same items, whatever the order, and never for other items or once old", () => {
    let now = 1_000;
    const store = createAttemptStore(
      new MemoryStorage(),
      () => `key-${now}`,
      () => now,
    );
    const items = [
      { sku: "b", quantity: 1 },
      { sku: "a", quantity: 2 },
    ];
    const attempt = store.begin({ items, confirmationToken: "ctoken_1" });
    expect(JSON.parse(attempt.bodyJson)).toEqual({
      items: [
        { sku: "a", quantity: 2 },
        { sku: "b", quantity: 1 },
      ],
      confirmationToken: "ctoken_1",
    });
    expect(store.resumable([...items].reverse())).toEqual(attempt);
    expect(store.resumable([{ sku: "a", quantity: 2 }])).toBeNull();
    now += RESEND_WINDOW_MS;
    expect(store.resumable(items)).toBeNull();
  });
});
