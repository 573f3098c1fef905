import { queryOptions, type QueryClient } from "@tanstack/react-query";
import { ApiError, requestJson } from "./api";
import type { AttemptStatus, OrderView, Product } from "./types";

/**
 * Every query of the shop, defined once. Queries of the shopper's own data
 * make sure a guest session exists first, so no page has to remember to.
 */
export const sessionQuery = queryOptions({
  queryKey: ["session"],
  // POST /api/session returns the existing session's customer, or starts one.
  queryFn: () => requestJson<{ customerId: string }>("/api/session", { method: "POST" }),
  staleTime: Infinity,
  gcTime: Infinity,
});

export const productsQuery = queryOptions({
  queryKey: ["products"],
  queryFn: () => requestJson<Product[]>("/api/products"),
});

export const ordersQuery = queryOptions({
  queryKey: ["orders"],
  queryFn: ({ client }) => withSession(client, () => requestJson<OrderView[]>("/api/orders")),
  staleTime: 0,
});

export const orderQuery = (id: string) =>
  queryOptions({
    queryKey: ["orders", id],
    queryFn: ({ client }) => withSession(client, () => requestJson<OrderView>(`/api/orders/${encodeURIComponent(id)}`)),
    // A pending or processing order is still being paid: keep it fresh until it settles.
    refetchInterval: (query) =>
      query.state.data?.status === "pending" || query.state.data?.status === "processing" ? 2_000 : false,
    retry: (count, error) => !(error instanceof ApiError && error.status === 404) && count < 1,
  });

/** What the shop knows about one checkout attempt: asked when retries run out. */
export const attemptStatusQuery = (key: string) =>
  queryOptions({
    queryKey: ["checkout-attempt", key],
    queryFn: ({ client }) => readAttemptStatus(client, key),
    staleTime: 0,
    retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
  });

/** GET /api/checkout/{key}, with `send` for a page whose requests go their own way (the chaos soak's tabs). */
export function readAttemptStatus(client: QueryClient, key: string, send?: typeof fetch): Promise<AttemptStatus> {
  return withSession(client, () => requestJson<AttemptStatus>(`/api/checkout/${encodeURIComponent(key)}`, {}, send));
}

async function withSession<T>(client: QueryClient, request: () => Promise<T>): Promise<T> {
  await client.ensureQueryData(sessionQuery);
  try {
    return await request();
  } catch (err) {
    // The cookie expired or was signed with an old secret: forget the session so a retry starts a new one.
    if (err instanceof ApiError && err.status === 401) client.removeQueries({ queryKey: sessionQuery.queryKey });
    throw err;
  }
}
