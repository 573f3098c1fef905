import { knownAttempt } from "./attempt";
import { createHmac, timingSafeEqual } from "node:crypto";
import type Stripe from "stripe";
import { linesMetadata, linesOf, type AttemptMetadata, type MetadataLine } from "../payments/attempt-intent";
import { ConfigError, SHOP_ID_ADVICE } from "../env";
import { isUuid } from "../uuid";

/**
 * Whose PaymentIntent is this? The one rule, for everything that acts on an
 * intent it did not just create: the catch-up's audit, webhooks, restoring a
 * lost order, adopting an intent found by its metadata, undoing a stray one,
 * and the audit. Several shops share one Stripe account (staging and
 * production, two laptops running the demo), and anyone who can write
 * metadata (a Dashboard user, another integration) can write an `orderId`.
 *
 * So every intent the shop creates carries its `shop` and a MAC
 * (HMAC-SHA256, keyed by a secret only the shop's servers hold) over what the
 * metadata claims: shop, orderId, customerId, the idempotency key, the lines,
 * and the intent's own amount and currency. An intent is this shop's only
 * when its MAC verifies and its `orderId` is the attempt id derived from its
 * customer and key. Another shop's is skipped (counted, never touched); one
 * naming this shop whose MAC fails was edited or forged: an alarm, never
 * refunded or restored automatically. The lab's naive lane (a demo of what the
 * shop prevents) signs its intents too, under a MAC of its own
 * (`labMetadata`): they are the shop's to account for, never an attempt's.
 */
export interface ShopIdentity {
  shopId: string;
  /** The first signs; every one verifies (a key before a rotation still reads the intents it signed). */
  macKeys: readonly Buffer[];
}

export type IntentOwner =
  | { kind: "ours"; orderId: string; customerId: string; idempotencyKey: string; lines: MetadataLine[] }
  /** No checkout attempt wrote it (no `orderId`): nobody's order. */
  | { kind: "not_an_attempt" }
  | { kind: "other_shop"; shop: string | null }
  /** The shop's own lab made it, outside any checkout attempt (signed): counted by the audit, never restored. */
  | { kind: "lab"; orderId: string }
  /** It names this shop, and what it claims does not verify. */
  | { kind: "tampered"; reason: string };

type Judged = Pick<Stripe.PaymentIntent, "metadata" | "amount" | "currency">;

/** The MAC key derived from a server-side secret (SESSION_SECRET): one purpose, one key. */
export function macKeyFrom(secret: string): Buffer {
  return createHmac("sha256", secret).update("checkout/intent-metadata-mac/v1").digest();
}

export function shopIdentity(shopId: string, secrets: readonly (string | undefined)[]): ShopIdentity {
  return { shopId, macKeys: secrets.filter((s): s is string => Boolean(s)).map(macKeyFrom) };
}

/** What one attempt's intent carries: its ids, its lines, the shop, and the MAC over all of it. */
export function attemptMetadata(
  identity: ShopIdentity,
  claim: {
    orderId: string;
    customerId: string;
    idempotencyKey: string;
    lines: readonly MetadataLine[];
    amountCents: number;
    currency: string;
  },
): AttemptMetadata {
  const base = {
    shop: identity.shopId,
    orderId: claim.orderId,
    customerId: claim.customerId,
    idempotencyKey: claim.idempotencyKey,
    ...linesMetadata(claim.lines),
  };
  const key = identity.macKeys[0];
  if (!key) throw new Error("no MAC key: the shop identity needs a secret");
  return { ...base, mac: mac(key, base, claim.amountCents, claim.currency) };
}

/**
 * What the lab's naive lane writes on an intent it creates: the shop, its
 * order, its lane, and a MAC over them in a form of its own (it can never
 * pass for an attempt's, nor an attempt's for it). Only the shop's servers
 * hold the key, so a `lane` the MAC does not cover is forged like any other.
 */
export function labMetadata(
  identity: ShopIdentity,
  claim: {
    orderId: string;
    customerId: string;
    lane: string;
    idempotencyKey?: string | undefined;
    amountCents: number;
    currency: string;
  },
): Record<string, string> {
  const base = {
    shop: identity.shopId,
    orderId: claim.orderId,
    customerId: claim.customerId,
    lane: claim.lane,
    ...(claim.idempotencyKey ? { idempotencyKey: claim.idempotencyKey } : {}),
  };
  const key = identity.macKeys[0];
  if (!key) throw new Error("no MAC key: the shop identity needs a secret");
  return { ...base, mac: labMac(key, base, claim.amountCents, claim.currency) };
}

export function judgeIntent(identity: ShopIdentity, intent: Judged): IntentOwner {
  const metadata = intent.metadata ?? {};
  const { orderId, customerId, idempotencyKey, shop } = metadata;
  if (typeof orderId !== "string" || orderId === "") return { kind: "not_an_attempt" };
  if (shop !== identity.shopId) return { kind: "other_shop", shop: shop ?? null };
  const sent = metadata.mac;
  if (typeof sent !== "string") return { kind: "tampered", reason: "no MAC" };
  if (metadata.lane !== undefined) {
    const lab = identity.macKeys.some((key) => same(labMac(key, metadata, intent.amount, intent.currency), sent));
    return lab
      ? { kind: "lab", orderId: orderId.toLowerCase() }
      : { kind: "tampered", reason: "its lab MAC does not verify" };
  }
  const verifies = identity.macKeys.some((key) => same(mac(key, metadata, intent.amount, intent.currency), sent));
  if (!verifies) return { kind: "tampered", reason: "the MAC does not verify" };
  if (!customerId || !idempotencyKey || !isUuid(customerId) || !isUuid(idempotencyKey))
    return { kind: "tampered", reason: "no customer or key" };
  if (orderId.toLowerCase() !== knownAttempt(customerId, idempotencyKey).id)
    return { kind: "tampered", reason: "orderId is not the attempt id of its customer and key" };
  const lines = linesOf(metadata);
  if (!lines) return { kind: "tampered", reason: "no order lines" };
  return { kind: "ours", orderId: orderId.toLowerCase(), customerId, idempotencyKey, lines };
}

/**
 * Whether an intent is this shop's to account for: signed by it (its lab's
 * too), or naming it with a MAC that fails (edited, or made behind its back
 * with its metadata). Another shop's, and intents with no order, are not.
 */
export function claimsThisShop(identity: ShopIdentity, intent: Judged): boolean {
  const kind = judgeIntent(identity, intent).kind;
  return kind === "ours" || kind === "lab" || kind === "tampered";
}

/** The shop's identity from its configuration: its shop id, keyed by the session secret and the one before it. */
export function configuredShopIdentity(config: {
  shopId: string | null;
  SESSION_SECRET?: string;
  SESSION_SECRET_PREVIOUS?: string;
}): ShopIdentity {
  // Never a default: a process that signed or judged intents as another shop could charge twice (lib/shop-identity.ts).
  if (!config.shopId) throw new ConfigError(`SHOP_ID: required: ${SHOP_ID_ADVICE}`);
  return shopIdentity(config.shopId, [config.SESSION_SECRET, config.SESSION_SECRET_PREVIOUS]);
}

/** Whether an intent found by its metadata is this attempt's own: this shop's, verified, with this attempt's id. */
export function isAttemptIntentOf(identity: ShopIdentity, orderId: string) {
  return (intent: Judged): boolean => {
    const owner = judgeIntent(identity, intent);
    return owner.kind === "ours" && owner.orderId === orderId.toLowerCase();
  };
}

/** Over each claimed field, unambiguously (JSON of a fixed list), with the intent's own amount and currency. */
function mac(key: Buffer, metadata: Record<string, string>, amount: number, currency: string): string {
  let lines = "";
  for (let i = 1; metadata[`lines_${i}`] !== undefined; i++) lines += metadata[`lines_${i}`];
  const claimed = [
    metadata.shop,
    metadata.orderId,
    metadata.customerId,
    metadata.idempotencyKey,
    lines,
    amount,
    currency.toLowerCase(),
  ];
  return createHmac("sha256", key).update(JSON.stringify(claimed)).digest("base64url");
}

/** The lab's form: tagged and longer than the attempt's list, so neither MAC verifies as the other. */
function labMac(key: Buffer, metadata: Record<string, string>, amount: number, currency: string): string {
  const claimed = [
    "lab",
    metadata.shop,
    metadata.orderId,
    metadata.customerId,
    metadata.lane,
    metadata.idempotencyKey ?? "",
    amount,
    currency.toLowerCase(),
  ];
  return createHmac("sha256", key).update(JSON.stringify(claimed)).digest("base64url");
}

function same(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
