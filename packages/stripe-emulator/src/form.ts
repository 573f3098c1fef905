/**
 * Parses `application/x-www-form-urlencoded` bodies and query strings the way
 * Stripe reads what stripe-node sends: bracket notation builds nested objects
 * (`metadata[orderId]=42`) and arrays (`expand[0]=x`, `expand[]=x`).
 */
export type ParamValue = string | Params | ParamValue[];
export interface Params {
  [key: string]: ParamValue;
}

export type FormResult = { ok: true; params: Params } | { ok: false; message: string };

// Keys that would write through to Object.prototype if used as property names.
const FORBIDDEN_KEYS = new Set(["__proto__", "prototype", "constructor"]);

export function parseForm(text: string): FormResult {
  const root: Params = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const path = splitKey(name);
    if (!path) return { ok: false, message: `Invalid parameter name: ${name}` };
    if (path.some((part) => FORBIDDEN_KEYS.has(part))) {
      return { ok: false, message: `Received unknown parameter: ${name}` };
    }
    const error = assign(root, path, value);
    if (error) return { ok: false, message: `${error}: ${name}` };
  }
  return { ok: true, params: arraysFromIndexes(root) as Params };
}

/** `a[b][c]` → ["a", "b", "c"]; `a[]` → ["a", ""]; null when the brackets do not balance. */
function splitKey(name: string): string[] | null {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name);
  if (!match || match[1] === undefined) return null;
  const rest = match[2] ?? "";
  const inner = [...rest.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] ?? "");
  return [match[1], ...inner];
}

function assign(target: Params, path: string[], value: string): string | null {
  let node: Params = target;
  for (let i = 0; i < path.length; i++) {
    const part = path[i] ?? "";
    const last = i === path.length - 1;
    // `[]` appends: give it the next free index so it becomes an array later.
    const key = part === "" ? String(Object.keys(node).length) : part;
    if (last) {
      if (Object.hasOwn(node, key)) return "Duplicate parameter";
      node[key] = value;
      return null;
    }
    // Own properties only: `toString[x]=1` must not find Object.prototype.toString.
    const existing = Object.hasOwn(node, key) ? node[key] : undefined;
    if (existing === undefined) {
      const child: Params = {};
      node[key] = child;
      node = child;
    } else if (typeof existing === "object" && !Array.isArray(existing)) {
      node = existing;
    } else {
      return "Conflicting parameter";
    }
  }
  return null;
}

/** Objects keyed exactly 0..n-1 become arrays, as Stripe treats `expand[0]=…&expand[1]=…`. */
function arraysFromIndexes(value: ParamValue): ParamValue {
  if (typeof value === "string" || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const converted: Params = {};
  for (const key of keys) converted[key] = arraysFromIndexes(value[key] as ParamValue);
  const isList = keys.length > 0 && keys.every((key, index) => key === String(index));
  return isList ? keys.map((key) => converted[key] as ParamValue) : converted;
}

/**
 * JSON with object keys sorted at every depth, so two requests carrying the
 * same parameters in a different order compare equal (idempotency fingerprints).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}
