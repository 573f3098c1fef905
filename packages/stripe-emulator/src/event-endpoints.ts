import type { Ctx } from "./context";
import { createdRange, within } from "./created-range";
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
  const range = createdRange(params.created);
  if (typeof range === "string") return invalidRequest(range, { param: "created" });
  const created = (seconds: number) => within(range, seconds);
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
