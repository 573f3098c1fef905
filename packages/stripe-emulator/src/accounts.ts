import { authenticate, secretKeyOf } from "./auth";
import { RestrictedKeys, type Permissions, type RestrictedKey } from "./restricted-keys";
import { freshState, type State, type WebhookDefaults } from "./state";

/**
 * The emulator's accounts. Every API key shares one default account (one
 * ledger, as at Stripe, where every key of an account sees the same
 * PaymentIntents) until a reset names the key: `POST /_emulator/reset` with
 * `Authorization: Bearer sk_test_…` gives that key a fresh account of its own
 * (ledger, idempotency keys, events, faults, counters, webhook settings). From
 * then on the key's `/v1` requests and the controls that name it use that
 * account, so tests running side by side, each with its own key, never see
 * each other's faults or charges. Controls without a key address the default
 * account, as the demo and `curl` use them.
 */
export class Accounts {
  private shared: State;
  private readonly own = new Map<string, State>();
  private readonly restricted = new RestrictedKeys();

  constructor(private readonly webhook: WebhookDefaults = {}) {
    this.shared = freshState(webhook);
  }

  /** The account a `/v1` request with this key (or a control naming it) works on. */
  forKey(apiKey: string | null): State {
    // A restricted key works on the account of the key that minted it.
    const key = apiKey === null ? null : (this.restricted.get(apiKey)?.account ?? secretKeyOf(apiKey));
    return (key !== null && this.own.get(key)) || this.shared;
  }

  /** Mints a restricted key with these permissions on the account `apiKey` names (null: the default one). */
  mintRestrictedKey(apiKey: string | null, permissions: Permissions): RestrictedKey {
    const owner = apiKey === null ? null : (this.restricted.get(apiKey)?.account ?? apiKey);
    return this.restricted.mint(owner, permissions);
  }

  /** A minted restricted key; null for an `rk_test_…` never minted (unknown to Stripe), undefined for a secret key. */
  restrictedKey(apiKey: string): RestrictedKey | null | undefined {
    return apiKey.startsWith("rk_") ? this.restricted.get(apiKey) : undefined;
  }

  /** The key a control request names with its Authorization header: null for none (the default account). */
  static controlKey(authorization: string | undefined): { ok: true; apiKey: string | null } | { ok: false } {
    if (authorization === undefined || authorization.trim() === "") return { ok: true, apiKey: null };
    const auth = authenticate(authorization);
    return auth.ok ? { ok: true, apiKey: auth.apiKey } : { ok: false };
  }

  /**
   * Forgets everything of one account: the key's own (created if it had none), or the default one.
   * A request still waiting in the old account (latency, the gate) finishes there, never in the new one.
   */
  reset(apiKey: string | null): void {
    const old = apiKey === null ? this.shared : this.own.get(apiKey);
    if (old) retire(old);
    const state = freshState(this.webhook);
    if (apiKey === null) this.shared = state;
    else this.own.set(apiKey, state);
  }

  /** The account whose ledger holds this PaymentIntent (the authentication page is reached without a key). */
  holding(intentId: string): State {
    for (const state of this.own.values()) if (state.ledger.get(intentId)) return state;
    return this.shared;
  }

  /** Shuts every account down: no retries, held requests give up. */
  close(): void {
    for (const state of [this.shared, ...this.own.values()]) {
      state.webhooks.stop();
      state.later.stop();
      state.faults.dropHeld();
    }
  }
}

function retire(state: State): void {
  state.webhooks.stop(); // retries of the old account must not reach the next test's endpoint
  state.later.stop(); // nor its refunds settling later
  state.faults.openGate(); // requests it was holding finish in the old account
}
