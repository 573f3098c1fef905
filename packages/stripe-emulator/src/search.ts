import type { Ctx } from "./context";
import type { Params } from "./form";
import type { PaymentIntent } from "./ledger";
import { limitError, limitOf } from "./payment-intents";
import { invalidRequest, ok, type ApiResponse } from "./responses";
import { unknownParam } from "./validation";

// `GET /v1/payment_intents/search`: the part of Stripe's search query language
// a reconciler needs to find an intent by its order, i.e. `metadata['k']:'v'`
// and `status:'x'` clauses joined by AND. Results are immediate unless the
// `searchLagMs` fault makes them lag as Stripe's do (its docs: "under a minute",
// up to an hour in an outage); `searchUnavailable` models an account without
// search (Stripe: not available to merchants in India).

const PARAMS = new Set(["query", "limit", "page", "expand"]);
const CLAUSE = /^(?:metadata\[(['"])(.+?)\1\]|(status|currency)):(['"])(.*)\4$/;

type Clause = { field: "metadata"; key: string; value: string } | { field: "status" | "currency"; value: string };

export function searchIntents(ctx: Ctx, params: Params): ApiResponse {
  const rejected = unknownParam(params, PARAMS) ?? limitError(params.limit);
  if (rejected) return rejected;
  ctx.stats.searches += 1;
  if (ctx.settings.searchUnavailable) {
    ctx.stats.searchesRefused += 1;
    return invalidRequest("Search is not available on this account (the Stripe emulator's searchUnavailable fault).", {
      code: "feature_not_enabled",
    });
  }
  if (typeof params.query !== "string" || params.query.trim() === "") {
    return invalidRequest("Missing required param: query.", { code: "parameter_missing", param: "query" });
  }
  const clauses = parseQuery(params.query);
  if (typeof clauses === "string") return invalidRequest(clauses, { param: "query" });
  const offset = params.page === undefined ? 0 : decodePage(params.page);
  if (offset === null) return invalidRequest("Invalid page token.", { param: "page" });
  const indexedBefore = Date.now() - ctx.settings.searchLagMs;
  const matching = ctx.ledger
    .all()
    .filter((intent) => intent.created * 1000 <= indexedBefore && clauses.every((clause) => matches(intent, clause)));
  const limit = limitOf(params.limit);
  const data = matching.slice(offset, offset + limit);
  const hasMore = matching.length > offset + limit;
  return ok({
    object: "search_result",
    url: "/v1/payment_intents/search",
    has_more: hasMore,
    next_page: hasMore ? Buffer.from(String(offset + limit)).toString("base64url") : null,
    data,
  });
}

function parseQuery(query: string): Clause[] | string {
  const clauses: Clause[] = [];
  for (const part of query.trim().split(/\s+AND\s+/)) {
    const match = CLAUSE.exec(part.trim());
    if (!match)
      return `The emulator's search supports metadata['key']:'value', status:'x' and currency:'x' clauses joined by AND, not: ${part}`;
    const value = match[5] ?? "";
    clauses.push(
      match[2] !== undefined
        ? { field: "metadata", key: match[2], value }
        : { field: match[3] as "status" | "currency", value },
    );
  }
  return clauses;
}

function matches(intent: PaymentIntent, clause: Clause): boolean {
  if (clause.field === "metadata") return intent.metadata[clause.key] === clause.value;
  return intent[clause.field] === clause.value;
}

function decodePage(token: Params[string]): number | null {
  if (typeof token !== "string") return null;
  const offset = Number(Buffer.from(token, "base64url").toString());
  return Number.isInteger(offset) && offset >= 0 ? offset : null;
}
