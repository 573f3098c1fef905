import { KILL_EXPLANATION, SCENARIOS, STORM, type Scenario } from "@/lib/lab/scenarios";

/** One button per scenario; each runs in both lanes at once. */
export function ScenarioPicker(props: {
  naiveEnabled: boolean;
  faultsEnabled: boolean;
  running: boolean;
  stormSize: string;
  onStormSize: (input: string) => void;
  onRun: (scenario: Scenario) => void;
}) {
  return (
    <section aria-labelledby="scenarios-heading" className="lab-scenarios">
      <h2 id="scenarios-heading">Scenarios</h2>
      <ul className="lab-scenario-list">
        {SCENARIOS.map((s) => {
          const blocked = blockedReason(s, props);
          return (
            <li key={s.id} className="lab-scenario">
              <div className="lab-scenario-head">
                <button
                  type="button"
                  disabled={props.running || blocked !== null}
                  aria-describedby={`${s.id}-summary`}
                  onClick={() => props.onRun(s)}
                >
                  {s.title}
                </button>
                {s.id === "double-click" && <span className="lab-start-here">Start here</span>}
              </div>
              <p id={`${s.id}-summary`} className="muted">
                {s.summary}
              </p>
              {s.id === "storm" && (
                <label className="lab-storm-size">
                  Presses
                  <input
                    type="number"
                    className="quantity"
                    min={STORM.min}
                    max={STORM.max}
                    value={props.stormSize}
                    disabled={props.running}
                    onChange={(e) => props.onStormSize(e.currentTarget.value)}
                  />
                </label>
              )}
              {s.id === "kill-mid-charge" ? (
                <details className="lab-blocked">
                  <summary>Why this one is off, and what it would show</summary>
                  <p>{KILL_EXPLANATION}</p>
                </details>
              ) : (
                (blocked ?? withoutFaults(s, props)) && (
                  <p className="lab-blocked">{blocked ?? withoutFaults(s, props)}</p>
                )
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** Scenarios whose faults only sharpen them still run without; say so rather than promise a slow gateway. */
function withoutFaults(s: Scenario, config: { faultsEnabled: boolean }): string | null {
  return s.faults && !s.needsFaults && !config.faultsEnabled
    ? "Runs here without slowing the gateway (that needs LAB_NAIVE_ENDPOINT=1 and the local emulator)."
    : null;
}

function blockedReason(s: Scenario, config: { naiveEnabled: boolean; faultsEnabled: boolean }): string | null {
  if (s.id === "kill-mid-charge") return "Needs a supervisor that restarts the app.";
  if (s.loseFirstResponse && !config.naiveEnabled) return "Off: the lab's lossy route needs LAB_NAIVE_ENDPOINT=1.";
  if (s.needsFaults && !config.faultsEnabled)
    return "Off: needs LAB_NAIVE_ENDPOINT=1 and the local Stripe emulator, to slow or fail the gateway.";
  return null;
}
