"use client";

import { useEffect, useRef, useState } from "react";
import type { Lane } from "@/lib/lab/lab-event";
import type { LaneTimeline, RequestBar } from "@/lib/lab/timeline";
import { axisTicks, seconds } from "./time-format";

/**
 * A lane's sequence diagram: the gateway's charges on top, one row per
 * request below (arrival to answer, on the server's clock), time left to
 * right on the same scale in both lanes. Drawn at the container's own width,
 * so text stays at its real size on a phone.
 */
const GUTTER = 76;
const PAD_RIGHT = 10;
const BAND = 34;
const AXIS = 24;
const CHAR_PX = 6.2; // ~width of one 11 px system-font character, for placing labels

export function TimelineChart({
  lane,
  title,
  timeline,
  span,
}: {
  lane: Lane;
  title: string;
  timeline: LaneTimeline;
  span: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box, 560);
  const { bars, charges } = timeline;
  const rowHeight = bars.length > 24 ? 15 : 22;
  const height = BAND + Math.max(bars.length, 1) * rowHeight + AXIS;
  const scale = Math.max(span, 1_000);
  const x = (t: number) => GUTTER + (t / scale) * (width - GUTTER - PAD_RIGHT);
  const id = `timeline-${lane}`;
  const chargeLabels = labelCharges(
    charges.map((c) => x(c.at)),
    width - PAD_RIGHT,
  );

  return (
    <div ref={box} className="lab-timeline">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        width={width}
        height={height}
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
      >
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{summary(timeline)}</desc>
        <text x={4} y={20} className="lab-tl-gutter">
          {charges.length === 0 ? "Charges" : `${charges.length} ${charges.length === 1 ? "charge" : "charges"}`}
        </text>
        <line x1={GUTTER} x2={width - PAD_RIGHT} y1={BAND - 6} y2={BAND - 6} className="lab-tl-rule" />
        {charges.map((c, i) => (
          <g key={c.paymentIntentId ?? i} className="lab-tl-charge">
            <line x1={x(c.at)} x2={x(c.at)} y1={BAND - 6} y2={height - AXIS} className="lab-tl-guide" />
            <path d={`M ${x(c.at)} 7 l 7 7 l -7 7 l -7 -7 z`} />
          </g>
        ))}
        {chargeLabels.map((l) => (
          <text key={l.text} x={l.x} y={19} textAnchor={l.anchor} className="lab-tl-charge-label">
            {l.text}
          </text>
        ))}
        {bars.length === 0 && (
          <text x={GUTTER} y={BAND + 15} className="lab-tl-empty">
            No requests yet
          </text>
        )}
        {bars.map((bar, row) => (
          <Bar key={bar.requestId} bar={bar} y={BAND + row * rowHeight} rowHeight={rowHeight} x={x} width={width} />
        ))}
        <g className="lab-tl-axis">
          <line x1={GUTTER} x2={width - PAD_RIGHT} y1={height - AXIS + 2} y2={height - AXIS + 2} />
          {axisTicks(scale).map((t) => (
            <text key={t} x={x(t)} y={height - 6} textAnchor="middle">
              {seconds(t)}
            </text>
          ))}
        </g>
      </svg>
    </div>
  );
}

function Bar({
  bar,
  y,
  rowHeight,
  x,
  width,
}: {
  bar: RequestBar;
  y: number;
  rowHeight: number;
  x: (t: number) => number;
  width: number;
}) {
  const start = x(bar.start);
  const end = Math.max(x(bar.end ?? bar.start), start + 3);
  const barHeight = rowHeight - 8;
  const mid = y + rowHeight / 2;
  const labelWidth = bar.label.length * CHAR_PX;
  // Beside the bar where it fits, else inside it, else against the right edge.
  const right = end + (bar.tone === "lost" ? 14 : 5) + labelWidth <= width - PAD_RIGHT;
  const left = !right && start - 5 - labelWidth >= GUTTER;
  const inside = !right && !left && end - start >= labelWidth + 10;
  const labelX = right
    ? end + (bar.tone === "lost" ? 14 : 5)
    : left
      ? start - 5
      : inside
        ? start + 5
        : width - PAD_RIGHT;
  return (
    <g className={`lab-tl-bar lab-tone-${bar.tone}`}>
      <text x={bar.attempt > 1 ? 16 : 4} y={mid + 4} className="lab-tl-gutter">
        {bar.attempt > 1 ? `↻ retry ${bar.attempt - 1}` : `Press ${bar.press}`}
      </text>
      <rect x={start} y={y + 4} width={end - start} height={barHeight} rx={3} />
      {bar.tone === "lost" && (
        <text x={end + 1} y={mid + 4} className="lab-tl-cut">
          ✕
        </text>
      )}
      <text
        x={labelX}
        y={mid + 4}
        textAnchor={right || inside ? "start" : "end"}
        className={inside ? "lab-tl-label lab-tl-label-inside" : "lab-tl-label"}
      >
        {bar.label}
      </text>
    </g>
  );
}

/**
 * Charge numbers, one label per cluster of marks: "1", or "1–2" for two
 * charges a few ms apart. A mark within 30 px of the cluster's last, or
 * under its label, joins the cluster, so no two labels overlap. Each label
 * goes after its cluster's last mark; the last one, where that would pass
 * `right`, before its first mark (joining the cluster before it if it would
 * run into that one's label), so no count is cut off at the edge.
 */
function labelCharges(positions: number[], right: number): Array<{ x: number; anchor: "start" | "end"; text: string }> {
  type Cluster = { start: number; end: number; first: number; last: number };
  const text = (c: Cluster) => (c.first === c.last ? String(c.first) : `${c.first}–${c.last}`);
  const after = (c: Cluster) => c.end + 10 + text(c).length * CHAR_PX;
  const clusters: Cluster[] = [];
  positions.forEach((p, i) => {
    const open = clusters.at(-1);
    if (open && (p - open.end < 30 || p < after(open) + 6)) Object.assign(open, { end: p, last: i + 1 });
    else clusters.push({ start: p, end: p, first: i + 1, last: i + 1 });
  });
  let lastBefore = false;
  for (let last = clusters.at(-1); last && after(last) > right; last = clusters.at(-1)) {
    const previous = clusters.at(-2);
    const before = last.start - 10 - text(last).length * CHAR_PX;
    if (previous && before < after(previous) + 6) {
      Object.assign(previous, { end: last.end, last: last.last });
      clusters.pop();
      continue;
    }
    lastBefore = before >= 0;
    break;
  }
  return clusters.map((c, i) => {
    const final = i === clusters.length - 1;
    if (final && lastBefore) return { x: c.start - 10, anchor: "end" as const, text: text(c) };
    if (final && after(c) > right) return { x: right, anchor: "end" as const, text: text(c) };
    return { x: c.end + 10, anchor: "start" as const, text: text(c) };
  });
}

function summary(t: LaneTimeline): string {
  const answers = t.bars.map((b) => `${b.attempt > 1 ? "retry" : "press"} ${b.press}: ${b.label}`).join("; ");
  const charges = t.charges.map((c) => seconds(c.at)).join(", ");
  const n = t.charges.length;
  return `${t.bars.length} requests (${answers || "none yet"}). ${n} ${n === 1 ? "charge" : "charges"} at the gateway${charges ? ` at ${charges}` : ""}.`;
}

/** The element's width, following resizes; `fallback` until it has been measured (and on the server). */
function useWidth(ref: React.RefObject<HTMLElement | null>, fallback: number): number {
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.max(280, Math.floor(entry.contentRect.width)));
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}
