import type { Ctx } from "./context";
import type { Params } from "./form";
import { limitError, limitOf } from "./payment-intents";
import { invalidRequest, ok, resourceMissing, type ApiResponse } from "./responses";
import { unknownParam } from "./validation";

// `GET /v1/events` and `/v1/events/{id}`: the record a test (or a reconciler)
// reads to see what the emulator told, or would have told, webhook endpoints.

const LIST_PARAMS = new Set([
  "limit",
  "starting_after",
  "ending_before",
  "type",
  "types",
  "expand",
  "delivery_success",
  "created",
]);

export function listEvents(ctx: Ctx, params: Params): ApiResponse {
  const rejected = unknownParam(params, LIST_PARAMS) ?? limitError(params.limit);
  if (rejected) return rejected;
  const types = typesOf(params);
  if (typeof types === "string") return invalidRequest(types, { param: "types" });
  const created = createdFilter(params.created);
  if (typeof created === "string") return invalidRequest(created, { param: "created" });
  const after = typeof params.starting_after === "string" ? params.starting_after : undefined;
  const before = typeof params.ending_before === "string" ? params.ending_before : undefined;
  const page = ctx.events.list(limitOf(params.limit), after, types, created, before);
  if (!page)
    return before !== undefined
      ? resourceMissing("event", before, "ending_before")
      : resourceMissing("event", after ?? "", "starting_after");
  return ok({ object: "list", url: "/v1/events", has_more: page.hasMore, data: page.data });
}

export function retrieveEvent(ctx: Ctx, id: string, params: Params): ApiResponse {
  const rejected = unknownParam(params, new Set(["expand"]));
  if (rejected) return rejected;
  const event = ctx.events.get(id);
  return event ? ok(event) : resourceMissing("event", id, "id");
}

/** `type=x` or `types[]=x&types[]=y`, as Stripe takes them (not both); null for no filter. */
function typesOf(params: Params): string[] | null | string {
  if (params.type !== undefined && params.types !== undefined)
    return "You may pass either type or types, but not both.";
  const raw = params.type ?? params.types;
  if (raw === undefined) return null;
  const list = Array.isArray(raw) ? raw : [raw];
  if (!list.every((item): item is string => typeof item === "string")) return "Invalid type filter.";
  return list;
}

/** `created=<unix seconds>` or `created[gt|gte|lt|lte]=<unix seconds>`, as Stripe's list endpoints take it. */
export function createdFilter(value: Params[string] | undefined): ((seconds: number) => boolean) | string {
  if (value === undefined) return () => true;
  const invalid = "Invalid created: must be an integer Unix timestamp, or an object with gt, gte, lt or lte.";
  const seconds = (text: unknown) => (typeof text === "string" && /^\d+$/.test(text) ? Number(text) : null);
  if (typeof value === "string") {
    const at = seconds(value);
    return at === null ? invalid : (s: number) => s === at;
  }
  if (Array.isArray(value)) return invalid;
  const tests: Array<(s: number) => boolean> = [];
  for (const [op, text] of Object.entries(value)) {
    const bound = seconds(text);
    if (bound === null) return invalid;
    if (op === "gt") tests.push((s) => s > bound);
    else if (op === "gte") tests.push((s) => s >= bound);
    else if (op === "lt") tests.push((s) => s < bound);
    else if (op === "lte") tests.push((s) => s <= bound);
    else return invalid;
  }
  return (s) => tests.every((test) => test(s));
}
