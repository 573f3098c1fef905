/**
 * The permissions a restricted key (`rk_test_…`) needs, in one table: the
 * docs' table is rendered from it (restricted-key.test.ts checks they match)
 * and a key minted with exactly these at the emulator takes payments under
 * every documented setting (the same test).
 */
export type Resource = "payment_intents" | "refunds" | "events" | "confirmation_tokens" | "payment_methods";
export type Access = "read" | "write";

/** A documented setting that changes what the key needs. */
export type KeySetting = "always" | "declines_per_card" | "smoke";

export interface PermissionRow {
  resource: Resource;
  /** The Dashboard's name for the resource. */
  label: string;
  access: Access;
  /** When the shop needs it: always, or only under one setting. */
  when: KeySetting;
  usedBy: string;
}

export const RESTRICTED_KEY_PERMISSIONS: readonly PermissionRow[] = [
  {
    resource: "payment_intents",
    label: "PaymentIntents",
    access: "write",
    when: "always",
    usedBy:
      "the checkout (create and confirm), the reconciler and the 3-D Secure return (retrieve, cancel), recovery (list, search), readiness (list), `smoke:stripe` (list)",
  },
  {
    resource: "refunds",
    label: "Refunds",
    access: "write",
    when: "always",
    usedBy:
      "refunds of late successes and stray intents, the record of refunds made elsewhere (list), `smoke:stripe`'s refund",
  },
  {
    resource: "events",
    label: "Events",
    access: "read",
    when: "always",
    usedBy: "the events catch-up (`GET /v1/events`)",
  },
  {
    resource: "confirmation_tokens",
    label: "ConfirmationTokens",
    access: "read",
    when: "always",
    usedBy:
      "the check that the publishable and the secret key are one account's (health, and a checkout whose token Stripe does not know); with `RATE_LIMIT_DECLINES_PER_CARD` above 0, the card of each typed-card payment (its fingerprint)",
  },
  {
    resource: "payment_methods",
    label: "PaymentMethods",
    access: "read",
    when: "declines_per_card",
    usedBy: "the checkout reads the card of each payment by PaymentMethod before it pays (its fingerprint)",
  },
  {
    resource: "confirmation_tokens",
    label: "ConfirmationTokens",
    access: "write",
    when: "smoke",
    usedBy: "`smoke:stripe` only: its typed-card payment, a token made by the test helper",
  },
];

const WHEN: Record<KeySetting, string> = {
  always: "always",
  declines_per_card: "with `RATE_LIMIT_DECLINES_PER_CARD` above 0",
  smoke: "to run `npm run smoke:stripe` with the key",
};

/** Exactly what a key needs under these settings ("always" included); write covers read. */
export function permissionsFor(settings: readonly KeySetting[]): Partial<Record<Resource, Access>> {
  const wanted = new Set<KeySetting>(["always", ...settings]);
  const permissions: Partial<Record<Resource, Access>> = {};
  for (const row of RESTRICTED_KEY_PERMISSIONS) {
    if (!wanted.has(row.when)) continue;
    if (permissions[row.resource] !== "write") permissions[row.resource] = row.access;
  }
  return permissions;
}

/** The table as docs/stripe-test-mode.md shows it. */
export function permissionTableMarkdown(): string {
  const rows = RESTRICTED_KEY_PERMISSIONS.map(
    (row) => `| ${row.label} | ${row.access === "write" ? "Write" : "Read"} | ${WHEN[row.when]} | ${row.usedBy} |`,
  );
  return ["| resource | permission | needed | used by |", "| --- | --- | --- | --- |", ...rows].join("\n");
}
