import type { LabLedgerResponse, Lane } from "@/lib/lab/lab-event";
import type { LaneTimeline } from "@/lib/lab/timeline";
import type { LabRun } from "@/lib/lab/browser/use-lab-run";
import { laneTotals } from "@/lib/lab/verdict";
import { LaneTotalsView } from "./lane-totals";
import { RequestLog } from "./request-log";
import { ShopperScreen } from "./shopper-screen";
import { TimelineChart } from "./timeline-chart";

const LANE_COPY: Record<Lane, { title: string; badge: string; endpoint: string; about: string }> = {
  naive: {
    title: "Naive checkout",
    badge: "The bug",
    endpoint: "POST /api/lab/naive-checkout",
    about:
      "A typical first implementation, demo only: every request creates an order and charges the card. No key, no retries.",
  },
  idempotent: {
    title: "Idempotent checkout",
    badge: "The fix",
    endpoint: "POST /api/checkout",
    about:
      "The shop's real endpoint and payment client: one Idempotency-Key per attempt, claimed before charging; retries with backoff.",
  },
};

export function LanePanel(props: {
  lane: Lane;
  enabled: boolean;
  run: LabRun | null;
  timeline: LaneTimeline | null;
  span: number;
  ledger: LabLedgerResponse["lanes"][Lane] | undefined;
  ledgerEnabled: boolean;
}) {
  const { lane, run, timeline } = props;
  const copy = LANE_COPY[lane];
  const headingId = `lane-${lane}-heading`;
  return (
    <section className={`panel lab-lane lab-lane-${lane}`} aria-labelledby={headingId}>
      <header className="lab-lane-head">
        <h2 id={headingId}>{copy.title}</h2>
        <span className={`badge ${lane === "naive" ? "badge-failed" : "badge-paid"}`}>{copy.badge}</span>
      </header>
      <p className="lab-lane-about">
        <code>{copy.endpoint}</code> — {copy.about}
      </p>
      {!props.enabled ? (
        <p className="lab-lane-off" role="note">
          <strong>This lane is off on this server.</strong> The naive endpoint is a deliberate bug, so it exists only
          when the server runs with <code>LAB_NAIVE_ENDPOINT=1</code> (<code>npm run demo</code> sets it). The
          idempotent lane still runs every scenario it can.
        </p>
      ) : (
        <>
          <LaneTotalsView
            lane={lane}
            totals={run && timeline ? laneTotals(timeline, props.ledger) : null}
            live={run?.phase !== "done"}
            ledgerEnabled={props.ledgerEnabled}
          />
          <ShopperScreen lane={lane} run={run} />
          {timeline && run && (
            <>
              <TimelineChart
                lane={lane}
                title={`${copy.title}: requests over time`}
                timeline={timeline}
                span={props.span}
              />
              <RequestLog lane={lane} timeline={timeline} />
            </>
          )}
        </>
      )}
    </section>
  );
}
