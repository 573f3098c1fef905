import { queryOptions } from "@tanstack/react-query";
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
