/** What is wrong with a request: the one shape of every `invalid_request`'s `issues` (docs/contract.md §2). */
import type { z } from "zod";

/** One problem, at a path into the request's body. */
export interface ValidationIssue {
  path: Array<string | number>;
  message: string;
}

/** A schema's complaints as issues (a symbol key, which JSON cannot carry, by its description). */
export function issuesOf(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((key) => (typeof key === "symbol" ? String(key.description) : key)),
    message: issue.message,
  }));
}
