"use client";

import { useMemo, useState } from "react";
import { useSession } from "@/lib/checkout-client/use-session";
import { LANES, type Lane } from "@/lib/lab/lab-event";
import { LAB_CART_LABEL, STORM, stormSizeOf } from "@/lib/lab/scenarios";
import { buildTimeline } from "@/lib/lab/timeline";
import type { LabStripe } from "@/lib/lab/browser/card-token";
import { useLabRun } from "@/lib/lab/browser/use-lab-run";
import { LanePanel } from "./lane-panel";
import { Legend } from "./legend";
import { RunStatus } from "./run-status";
import { ScenarioPicker } from "./scenario-picker";

/** /lab: the same checkout twice, without and with idempotency, under the same faults. */
export function LabView({
  naiveEnabled,
  faultsEnabled,
  stripe,
}: {
  naiveEnabled: boolean;
  faultsEnabled: boolean;
  stripe: LabStripe;
}) {
  useSession(); // started now, so the first run does not wait for it
  const lanes = useMemo<readonly Lane[]>(() => (naiveEnabled ? LANES : ["idempotent"]), [naiveEnabled]);
  // The ledger view, like the naive lane, exists only with the lab flag.
  const lab = useLabRun({ lanes, faults: faultsEnabled, ledger: naiveEnabled, stripe });
  const [stormSize, setStormSize] = useState(String(STORM.default));
  const timeline = useMemo(() => (lab.events ? buildTimeline(lab.events.events, lab.events.now) : null), [lab.events]);

  return (
    <section aria-labelledby="lab-heading" className="lab">
      <div className="page-head">
        <h1 id="lab-heading">Reliability lab</h1>
      </div>
      <p className="lab-intro">
        One shopper, one cart ({LAB_CART_LABEL}), two checkouts side by side. Pick a scenario: both lanes run it at the
        same moment from this browser. The timelines are drawn from the app&apos;s own event log, and charges are
        counted
        {naiveEnabled ? " in the payment gateway's ledger" : " from the app's payment events"} — nothing on this page is
        a guess.
      </p>
      <ScenarioPicker
        naiveEnabled={naiveEnabled}
        faultsEnabled={faultsEnabled}
        running={lab.live}
        stormSize={stormSize}
        onStormSize={setStormSize}
        onRun={(scenario) => void lab.start(scenario, stormSizeOf(stormSize))}
      />
      <RunStatus run={lab.run} />
      <div className="lab-lanes">
        {LANES.map((lane) => (
          <LanePanel
            key={lane}
            lane={lane}
            enabled={lanes.includes(lane)}
            run={lab.run}
            timeline={timeline?.lanes[lane] ?? null}
            span={timeline?.span ?? 0}
            ledger={lab.run?.phase === "done" ? lab.ledger?.lanes[lane] : undefined}
            ledgerEnabled={naiveEnabled}
          />
        ))}
      </div>
      {lab.run && lab.run.scenario.lesson && (
        <section className="panel lab-lesson" aria-labelledby="lesson-heading">
          <h2 id="lesson-heading">What to look for: {lab.run.scenario.title}</h2>
          <p>{lab.run.scenario.lesson}</p>
        </section>
      )}
      <Legend />
    </section>
  );
}
