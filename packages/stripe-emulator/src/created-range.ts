import type { Params } from "./form";

/** The `created` bounds of a list, inclusive, in Unix seconds. */
export interface CreatedRange {
  gte: number;
  lte: number;
}

export const ANY_TIME: CreatedRange = { gte: -Infinity, lte: Infinity };

/**
 * `created=<unix seconds>` or `created[gt|gte|lt|lte]=<unix seconds>`, as
 * Stripe's list endpoints take it (stripe-node: `RangeQueryParam | number`),
 * as inclusive bounds; a string saying what is wrong otherwise.
 */
export function createdRange(value: Params[string] | undefined): CreatedRange | string {
  if (value === undefined) return ANY_TIME;
  const invalid = "Invalid created: must be an integer Unix timestamp, or an object with gt, gte, lt or lte.";
  const seconds = (text: unknown) => (typeof text === "string" && /^\d+$/.test(text) ? Number(text) : null);
  if (typeof value === "string") {
    const at = seconds(value);
    return at === null ? invalid : { gte: at, lte: at };
  }
  if (Array.isArray(value)) return invalid;
  const range = { ...ANY_TIME };
  for (const [op, text] of Object.entries(value)) {
    const bound = seconds(text);
    if (bound === null) return invalid;
    if (op === "gt") range.gte = Math.max(range.gte, bound + 1);
    else if (op === "gte") range.gte = Math.max(range.gte, bound);
    else if (op === "lt") range.lte = Math.min(range.lte, bound - 1);
    else if (op === "lte") range.lte = Math.min(range.lte, bound);
    else return invalid;
  }
  return range;
}

export function within(range: CreatedRange, created: number): boolean {
  return created >= range.gte && created <= range.lte;
}
