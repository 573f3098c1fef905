import { closedGate, raw, sql, type Gate, type KeyScope, type Refusal, type Sql } from "@checkout/idempotency";
import { queryRows } from "../db";
import type { PrismaClient } from "../generated/prisma/client";
import type { CardCheck } from "./card-check";
import type { CheckoutGate } from "./checkout-gate";

/**
 * Admission: whether a fresh checkout key may start an attempt (the session's
 * and the address's limits, the customer's open attempts, the card-testing
 * brake), checked inside the claim's one statement as its gate
 * (docs/decisions/0013-the-gate-in-the-claim.md). The engine slots the SQL in
 * without knowing what it counts; a key the customer already has is never
 * limited.
 */

/** Why a fresh key was not admitted. */
export type AdmissionRule =
  | "open_attempts"
  | "checkout_per_address"
  | "checkout_per_session"
  | "too_many_declines"
  | "provider_budget"
  | "provider_busy"
  /** The checkout named is not the customer's (or does not exist). */
  | "unknown_checkout"
  /** The checkout has a live payment (in progress, waiting for the shopper, processing or paid). */
  | "checkout_has_payment";

/**
 * The limits a fresh key must pass. `admit: false` (a bucket this process
 * already saw spent) only reads: a known key is answered, a fresh one refused
 * as `blockedBy`, nothing written.
 */
export interface Admission {
  address: string;
  perAddress: number;
  perSession: number;
  maxOpenAttempts: number;
  windowSeconds: number;
  /** Declined payments allowed per session, per address and per card in `declineWindowSeconds`. */
  declinesPerSession: number;
  declinesPerAddress: number;
  declinesPerCard: number;
  declineWindowSeconds: number;
  /** The fingerprint of the card the fresh key would pay with; null or absent: not counted per card. */
  card?: string | null;
  admit: true | { blockedBy: AdmissionRule; retryAfterSeconds: number };
  /**
   * Whether a known key whose attempt must ask the provider again (a retake
   * after an unknown outcome) may: it spends the provider budget like a fresh
   * key. Absent: it may.
   */
  retake?: true | { blockedBy: AdmissionRule; retryAfterSeconds: number };
}

/** Spreads one address's (and one card's) count over this many rows, so its shoppers never queue on one row. */
export const ADDRESS_SHARDS = 8;
/** How long a shopper with every open slot taken waits before asking again. */
export const OPEN_ATTEMPTS_RETRY_AFTER_SECONDS = 5;

const refusalOf = (blocked: { blockedBy: AdmissionRule; retryAfterSeconds: number }): Refusal<AdmissionRule> => ({
  rule: blocked.blockedBy,
  retryAfterSeconds: blocked.retryAfterSeconds,
});

/**
 * The claim's gate for `scope`: a fresh key is inserted only if its customer
 * has an open slot (`open_slot`, unique per customer while set, so two racing
 * claims cannot both take the last) and the address's and the session's
 * counts of keys admitted in this window, and the declines in theirs, are
 * under their limits; then it is counted. A refusal writes nothing.
 */
export function admissionGate(
  scope: KeyScope,
  admission: Admission,
  checkoutId: string | null = null,
): Gate<AdmissionRule> {
  const retake = admission.retake && admission.retake !== true ? refusalOf(admission.retake) : null;
  if (admission.admit !== true) return closedGate(refusalOf(admission.admit), retake);
  const { subjectId: subject, endpoint } = scope;
  const slot = checkoutSlot(subject, checkoutId);
  const declines = (rule: string, bucket: unknown) =>
    sql`(select coalesce(sum(c.hits), 0) from admission_counters c, dwin
          where c.rule = ${rule} and c.bucket = ${bucket}::text and c.window_start = dwin.start)`;
  const admitted = (rule: string, bucket: unknown) =>
    sql`(select coalesce(sum(c.hits), 0) from admission_counters c, win
          where c.rule = ${rule} and c.bucket = ${bucket}::text and c.window_start = win.start)`;
  const card = admission.card ?? null;
  return {
    before: sql`win as (
      select to_timestamp(floor(extract(epoch from now()) / ${admission.windowSeconds}::int) * ${admission.windowSeconds}::int) as start
    ), dwin as (
      select to_timestamp(floor(extract(epoch from now()) / ${admission.declineWindowSeconds}::int) * ${admission.declineWindowSeconds}::int) as start
    ), open_attempts as (
      select count(*)::int as n from idempotency_keys
       where subject_id = ${subject} and endpoint = ${endpoint} and open_slot is not null
    ), ${slot.before}, verdict as (
      select case
        when exists (select 1 from existing) then 'known'
        when ${slot.refused} is not null then ${slot.refused}
        when ${declines("declines_per_session", subject)} >= ${admission.declinesPerSession}::int
          or ${declines("declines_per_address", admission.address)} >= ${admission.declinesPerAddress}::int
          or ${card}::text is not null and ${declines("declines_per_card", card)} >= ${admission.declinesPerCard}::int
          then 'too_many_declines'
        when (select n from open_attempts) >= ${admission.maxOpenAttempts}::int then 'open_attempts'
        when ${admitted("checkout_per_address", admission.address)} >= ${admission.perAddress}::int
          then 'checkout_per_address'
        when ${admitted("checkout_per_session", subject)} >= ${admission.perSession}::int
          then 'checkout_per_session'
        else 'admitted' end as decision
    )`,
    admits: sql`(select decision from verdict) = 'admitted'`,
    columns: {
      open_slot: sql`(select s from generate_series(0, (select n from open_attempts)) s
         where not exists (select 1 from idempotency_keys o
                            where o.subject_id = ${subject} and o.endpoint = ${endpoint} and o.open_slot = s)
         order by s limit 1)`,
      ...slot.columns,
    },
    after: sql`counted as (
      insert into admission_counters (rule, bucket, window_start, shard, hits)
      select r.rule, r.bucket, win.start, r.shard, 1
        from inserted, win,
             (values ('checkout_per_address', ${admission.address}::text, ${Math.floor(Math.random() * ADDRESS_SHARDS)}::int),
                     ('checkout_per_session', ${subject}::text, 0)) as r(rule, bucket, shard)
      on conflict (rule, bucket, window_start, shard) do update set hits = admission_counters.hits + 1
    )`,
    refusal: sql`select v.decision,
         case when v.decision = 'open_attempts' then ${OPEN_ATTEMPTS_RETRY_AFTER_SECONDS}::int
              when v.decision = 'too_many_declines'
                then greatest(1, ceil(extract(epoch from dwin.start + ${admission.declineWindowSeconds}::int * interval '1 second' - now())))::int
              when v.decision in ('unknown_checkout', 'checkout_has_payment') then 1
              else greatest(1, ceil(extract(epoch from win.start + ${admission.windowSeconds}::int * interval '1 second' - now())))::int end
    from verdict v, win, dwin
   where v.decision not in ('known', 'admitted')`,
    read: (rule, retryAfterSeconds) => ({ rule: rule as AdmissionRule, retryAfterSeconds }),
    retake,
  };
}

/**
 * A fresh key for `checkoutId` may pay it only if the checkout is the
 * customer's and has no live payment: no claim of it that has not failed,
 * no order of it paid or settling. The claim sets `live_group` (the checkout), whose
 * unique partial index (live records only) makes the later of two racing
 * claims fail in its own statement; the engine runs it again, and the
 * second run sees the first claim and refuses. Null: the attempt is a
 * checkout of its own, nothing to check.
 */
export function checkoutSlot(
  subject: string,
  checkoutId: string | null,
): { before: Sql; refused: Sql; columns: Record<string, Sql> } {
  if (!checkoutId)
    return { before: sql`checkout_slot as (select null::text as refused)`, refused: raw("null"), columns: {} };
  return {
    before: sql`checkout_slot as (
      select case
        when not exists (select 1 from checkouts c where c.id = ${checkoutId}::uuid and c.customer_id::text = ${subject})
          then 'unknown_checkout'
        when exists (select 1 from idempotency_keys k where k.live_group = ${checkoutId}::uuid and k.status <> 'failed')
          or exists (select 1 from orders o where o.checkout_id = ${checkoutId}::uuid and o.status not in ('pending', 'failed'))
          then 'checkout_has_payment'
        end as refused
    )`,
    refused: raw("(select refused from checkout_slot)"),
    columns: { live_group: sql`${checkoutId}::uuid` },
  };
}

/** The checkout's part of the claim alone, for a claim without admission limits. */
export function checkoutGate(subject: string, checkoutId: string): Gate<AdmissionRule> {
  const slot = checkoutSlot(subject, checkoutId);
  return {
    before: slot.before,
    admits: sql`${slot.refused} is null`,
    columns: slot.columns,
    refusal: sql`select refused, 1 from checkout_slot where refused is not null`,
    read: (rule, retryAfterSeconds) => ({ rule: rule as AdmissionRule, retryAfterSeconds }),
  };
}

/**
 * Counts a declined payment against its session, its address and its card
 * (`card`: the card's fingerprint; null: not counted by it): the card-testing
 * brake the gate checks. One statement, on the decline's path only.
 */
export async function countDecline(
  prisma: PrismaClient,
  subjectId: string,
  address: string | null,
  windowSeconds: number,
  card: string | null = null,
): Promise<void> {
  await queryRows(
    prisma,
    `insert into admission_counters (rule, bucket, window_start, shard, hits)
     select r.rule, r.bucket, to_timestamp(floor(extract(epoch from now()) / $3::int) * $3::int), r.shard, 1
       from (values ('declines_per_session', $1::text, 0), ('declines_per_address', $2::text, $4::int),
                    ('declines_per_card', $5::text, $4::int)) as r(rule, bucket, shard)
      where r.bucket is not null
     on conflict (rule, bucket, window_start, shard) do update set hits = admission_counters.hits + 1`,
    [subjectId, address, windowSeconds, Math.floor(Math.random() * ADDRESS_SHARDS), card],
  );
}

/** A checkout request's admission, and what its answer tells the gate. */
export interface CheckoutTicket {
  /** For the claim's gate (admissionGate). */
  admission: Admission;
  /** The request made no provider call: its reserved unit of the provider budget goes back. */
  giveBack(): void;
  /** The use case's answer: a refusal is remembered until its window ends, a busy provider sheds fresh attempts. */
  answered(result: { kind: string; rule?: AdmissionRule; retryAfterSeconds?: number; providerBusy?: true }): void;
}

/**
 * Admits a checkout request: reserves the provider call a fresh key or a
 * retake would make, and looks the card up when a fresh key could be
 * admitted (its declines are counted per card too). `known` says whether the
 * key already has a record (then the card does not matter).
 */
export async function admitCheckout(
  gate: CheckoutGate,
  cards: CardCheck,
  request: { customerId: string; address: string; credential: string; known: () => Promise<boolean> },
): Promise<CheckoutTicket> {
  const { customerId, address } = request;
  const reserved = gate.admission(customerId, address);
  const card = await cards
    .admit(reserved, request.credential, {
      subject: customerId,
      known: request.known,
      spend: () => gate.spend(address),
    })
    .catch((err: unknown) => {
      reserved.giveBack();
      throw err;
    });
  if (card.providerBusy) gate.providerBusy();
  return {
    admission: card.admission,
    giveBack: reserved.giveBack,
    answered(result) {
      if (result.kind === "refused" && result.rule && result.retryAfterSeconds !== undefined)
        gate.refused(customerId, address, result.rule, result.retryAfterSeconds);
      if (result.kind === "unavailable" && result.providerBusy) gate.providerBusy();
    },
  };
}
