import { hash } from "node:crypto";

/**
 * Canonical JSON: object keys sorted at every depth, arrays in their order,
 * no whitespace. Two bodies that differ only in key order get the same
 * fingerprint; any other change, at any depth, gets a different one.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`Cannot fingerprint a ${typeof value}`);
    return text;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(",")}}`;
}

/** SHA-256 (hex) of the canonical JSON of a request body (one-shot `hash`: no Hash object per request). */
export function fingerprint(body: unknown): string {
  return hash("sha256", canonicalJson(body), "hex");
}
