/** Time on the lab's axes: "0 s", "0.5 s", "12 s". */
export function seconds(ms: number): string {
  const s = ms / 1000;
  return `${s >= 10 || Number.isInteger(s) ? s.toFixed(0) : s.toFixed(1).replace(/\.0$/, "")} s`;
}

/** At most about six ticks, at a round step, from 0 to `span` ms. */
export function axisTicks(span: number): number[] {
  const step = [250, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 30_000].find((s) => span / s <= 6) ?? 60_000;
  return Array.from({ length: Math.floor(span / step) + 1 }, (_, i) => i * step);
}
