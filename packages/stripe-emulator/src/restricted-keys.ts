import { randomId } from "./ids";
import { stripeError, type ApiResponse } from "./responses";

/**
 * Restricted keys (`rk_test_…`) as Stripe's Dashboard makes them: each
 * resource of the API set to None, Read or Write, Write including Read
 * (docs.stripe.com/keys/restricted-api-keys). A request the key's permissions
 * do not cover is answered 403 with an `invalid_request_error`, which
 * stripe-node raises as `StripePermissionError` (node_modules/stripe Error.js
 * maps every 403 to it). A key is minted by `POST /_emulator/restricted_keys`;
 * an `rk_test_…` the emulator never minted is an unknown key (401).
 */
export const RESOURCES = [
  "payment_intents",
  "refunds",
  "events",
  "charges",
  "confirmation_tokens",
  "payment_methods",
] as const;
export type Resource = (typeof RESOURCES)[number];
export type Access = "read" | "write";
export type Permissions = Partial<Record<Resource, Access>>;

export interface RestrictedKey {
  id: string;
  object: "restricted_key";
  /** The key whose account the restricted key works on; null for the default account. */
  account: string | null;
  permissions: Permissions;
}

/** What a `/v1` request needs: the resource (its first path segment) and read (GET) or write (anything else). */
export function requiredPermission(method: string, path: string): { resource: string; access: Access } {
  const segments = path.replace(/^\/v1\//, "").split("/");
  // Test helpers act on the resource they name (`/v1/test_helpers/confirmation_tokens`).
  const resource = (segments[0] === "test_helpers" ? segments[1] : segments[0]) ?? "";
  return { resource, access: method === "GET" ? "read" : "write" };
}

/** null when the key may make the request; else Stripe's 403. */
export function checkPermission(key: RestrictedKey, method: string, path: string): ApiResponse | null {
  const needed = requiredPermission(method, path);
  const held = key.permissions[needed.resource as Resource];
  if (held === "write" || (held === "read" && needed.access === "read")) return null;
  const masked = `${key.id.slice(0, 8)}****${key.id.slice(-4)}`;
  return stripeError(403, {
    type: "invalid_request_error",
    message:
      `The provided key '${masked}' does not have the required permissions for this endpoint. ` +
      `Having the '${needed.resource}: ${needed.access}' permission would allow this request to continue.`,
  });
}

/** The parsed body of `POST /_emulator/restricted_keys`, or what is wrong with it. */
export function parsePermissions(input: unknown): Permissions | string {
  const usage = `send { "permissions": { resource: "read" | "write" } }, resources: ${RESOURCES.join(", ")}.`;
  if (typeof input !== "object" || input === null) return usage;
  const given = (input as { permissions?: unknown }).permissions;
  if (typeof given !== "object" || given === null || Array.isArray(given)) return usage;
  const permissions: Permissions = {};
  for (const [resource, access] of Object.entries(given)) {
    if (!(RESOURCES as readonly string[]).includes(resource)) return `Unknown resource ${resource}: ${usage}`;
    if (access !== "read" && access !== "write" && access !== "none") return `${resource}: ${usage}`;
    if (access !== "none") permissions[resource as Resource] = access;
  }
  return permissions;
}

export class RestrictedKeys {
  private readonly keys = new Map<string, RestrictedKey>();

  mint(account: string | null, permissions: Permissions): RestrictedKey {
    const key: RestrictedKey = { id: randomId("rk_test_", 24), object: "restricted_key", account, permissions };
    this.keys.set(key.id, key);
    return key;
  }

  get(id: string): RestrictedKey | null {
    return this.keys.get(id) ?? null;
  }
}
