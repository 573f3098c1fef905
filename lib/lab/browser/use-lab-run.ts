"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { sessionQuery } from "@/lib/checkout-client/queries";
import type { Lane } from "@/lib/lab/lab-event";
import type { LabStripe } from "./card-token";
import { labEventsQuery, labLedgerQuery, readFromNow } from "./queries";
import { runScenario } from "./run-scenario";
import type { Scenario } from "@/lib/lab/scenarios";
import type { ShopperView } from "./shoppers";

/**
 * One lab run at a time: starts it, polls the app's event log while it
 * runs, and reads it once more with the gateway's ledger after the last press
 * has settled, so the numbers on screen are final when it says done. The
 * ledger is not read during the run: the emulator's injected failures hit
 * every call to it, and a ledger read must not use up the scenario's 503s.
 */
export interface LabRun {
  runId: string;
  scenario: Scenario;
  stormSize: number;
  phase: "running" | "settling" | "done";
  startedAt: number;
  finishedAt: number | null;
  views: Partial<Record<Lane, ShopperView>>;
  error: string | null;
}

export const EVENTS_POLL_MS = 400;

export function useLabRun(config: { lanes: readonly Lane[]; faults: boolean; ledger: boolean; stripe: LabStripe }) {
  const client = useQueryClient();
  const [run, setRun] = useState<LabRun | null>(null);
  const runId = run?.runId ?? null;
  const live = run !== null && run.phase !== "done";
  const events = useQuery({ ...labEventsQuery(runId), refetchInterval: live ? EVENTS_POLL_MS : false });
  const ledger = useQuery({
    ...labLedgerQuery(runId),
    enabled: config.ledger && runId !== null && run?.phase === "done",
  });

  const start = useCallback(
    async (scenario: Scenario, stormSize: number) => {
      const id = crypto.randomUUID();
      const fresh = (): LabRun => ({
        runId: id,
        scenario,
        stormSize,
        phase: "running",
        startedAt: Date.now(),
        finishedAt: null,
        views: {},
        error: null,
      });
      const update = (change: (r: LabRun) => Partial<LabRun>) =>
        setRun((r) => (r?.runId === id ? { ...r, ...change(r) } : r));
      try {
        // Before the run exists, so its first poll of the event log already has a session.
        await client.ensureQueryData(sessionQuery);
        setRun(fresh());
        await runScenario({
          client,
          runId: id,
          scenario,
          stormSize,
          lanes: config.lanes,
          faults: config.faults,
          stripe: config.stripe,
          onView: (lane, view) => update((r) => ({ views: { ...r.views, [lane]: view } })),
        });
        update(() => ({ phase: "settling", finishedAt: Date.now() }));
        await Promise.all([
          readFromNow(client, labEventsQuery(id)),
          config.ledger ? readFromNow(client, labLedgerQuery(id)) : null,
        ]);
        update(() => ({ phase: "done" }));
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        const failed = { phase: "done", finishedAt: Date.now(), error } as const;
        setRun((r) =>
          r?.runId === id
            ? { ...r, ...failed, finishedAt: r.finishedAt ?? failed.finishedAt }
            : { ...fresh(), ...failed },
        );
      }
    },
    [client, config.lanes, config.faults, config.ledger, config.stripe],
  );

  return { run, events: events.data, ledger: ledger.data, live, start };
}
