import type { LabRun } from "@/lib/lab/browser/use-lab-run";

/** Where the current run stands, announced politely as it changes. */
export function RunStatus({ run }: { run: LabRun | null }) {
  return (
    <div className="lab-run-status" role="status" aria-live="polite" aria-atomic="true">
      <RunText run={run} />
    </div>
  );
}

function RunText({ run }: { run: LabRun | null }) {
  if (!run) return <p className="muted">Pick a scenario to start. A run takes between one and fifteen seconds.</p>;
  const name = `“${run.scenario.title}”`;
  if (run.phase === "running")
    return (
      <p>
        <span className="spinner" aria-hidden="true" /> Running {name}…
      </p>
    );
  if (run.phase === "settling")
    return (
      <p>
        <span className="spinner" aria-hidden="true" /> Reading the gateway&apos;s ledger…
      </p>
    );
  const seconds = (((run.finishedAt ?? run.startedAt) - run.startedAt) / 1000).toFixed(1);
  return (
    <p>
      <strong>{name} finished</strong> in {seconds} s. <span className="muted">Run {run.runId.slice(0, 8)}</span>
      {run.error && <span className="lab-run-error"> The run stopped early: {run.error}</span>}
    </p>
  );
}
