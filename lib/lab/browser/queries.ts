import { queryOptions, type FetchQueryOptions, type QueryClient, type QueryKey } from "@tanstack/react-query";
import { requestJson } from "@/lib/checkout-client/api";
import type { LabEventsResponse, LabLedgerResponse } from "@/lib/lab/lab-event";

/** The lab page's reads, defined once: a run's events and its charges at the gateway. */
export const labEventsQuery = (runId: string | null) =>
  queryOptions({
    queryKey: ["lab", "events", runId],
    queryFn: () => requestJson<LabEventsResponse>(`/api/lab/events?run=${runId}`),
    enabled: runId !== null,
    staleTime: 0,
  });

export const labLedgerQuery = (runId: string | null) =>
  queryOptions({
    queryKey: ["lab", "ledger", runId],
    queryFn: () => requestJson<LabLedgerResponse>(`/api/lab/ledger?run=${runId}`),
    enabled: runId !== null,
    staleTime: 0,
  });

/**
 * A read sent from now on, for the numbers a finished run shows: `fetchQuery`
 * hands back a poll already in flight, sent before the run's last answers were
 * recorded, and the page would show that as final (on a loaded machine, a
 * lane's confirmed order never appeared).
 */
export async function readFromNow<T, K extends QueryKey>(
  client: QueryClient,
  options: FetchQueryOptions<T, Error, T, K>,
): Promise<T> {
  await client.cancelQueries({ queryKey: options.queryKey, exact: true });
  return client.fetchQuery(options);
}
