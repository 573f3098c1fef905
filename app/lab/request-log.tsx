import type { Lane } from "@/lib/lab/lab-event";
import type { LaneTimeline } from "@/lib/lab/timeline";
import { seconds } from "./time-format";

/** The timeline as a table: the same facts for screen readers, keyboards and the curious. */
export function RequestLog({ lane, timeline }: { lane: Lane; timeline: LaneTimeline }) {
  return (
    <details className="lab-log">
      <summary>
        Request log ({count(timeline.bars.length, "request")}, {count(timeline.charges.length, "charge")})
      </summary>
      <table>
        <caption className="visually-hidden">Requests of the {lane} lane, as the server recorded them</caption>
        <thead>
          <tr>
            <th scope="col">Request</th>
            <th scope="col">Arrived</th>
            <th scope="col">Took</th>
            <th scope="col">Answer</th>
          </tr>
        </thead>
        <tbody>
          {timeline.bars.map((b) => (
            <tr key={b.requestId}>
              <th scope="row">{b.attempt > 1 ? `Press ${b.press}, retry ${b.attempt - 1}` : `Press ${b.press}`}</th>
              <td>{seconds(b.start)}</td>
              <td>{b.end === null ? "…" : `${Math.round(b.end - b.start)} ms`}</td>
              <td>{b.label}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {timeline.charges.length > 0 && (
        <p>
          Charges: {timeline.charges.map((c) => `${c.paymentIntentId ?? "unknown"} at ${seconds(c.at)}`).join(", ")}.
        </p>
      )}
    </details>
  );
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
