import type { AuditWindow } from "./findings";

/** `--since 24h` (s, m, h, d), or `--from ISO --to ISO`; the last day by default. */
export type WindowArgs = { since?: string | undefined; from?: string | undefined; to?: string | undefined };

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Longer windows are several audits: Stripe keeps the record, the cost is the window's. */
export const MAX_WINDOW_MS = 31 * UNIT_MS.d!;

export function parseWindow(args: WindowArgs, now = Date.now()): AuditWindow | string {
  if (args.since !== undefined && (args.from !== undefined || args.to !== undefined))
    return "--since and --from/--to: give one or the other";
  if (args.from !== undefined || args.to !== undefined) {
    if (args.from === undefined) return "--to needs --from (an ISO time, e.g. 2026-12-02T00:00:00Z)";
    const from = isoTime(args.from);
    const to = args.to === undefined ? new Date(now) : isoTime(args.to);
    if (!from) return `--from: not an ISO time: ${args.from} (e.g. 2026-12-02T00:00:00Z)`;
    if (!to) return `--to: not an ISO time: ${args.to} (e.g. 2026-12-03T00:00:00Z)`;
    return bounded({ from, to });
  }
  const match = /^(\d+)([smhd])$/.exec(args.since ?? "24h");
  if (!match) return `--since: a duration like 90m, 24h or 7d, got ${args.since}`;
  const ms = Number(match[1]) * UNIT_MS[match[2]!]!;
  return bounded({ from: new Date(now - ms), to: new Date(now) });
}

function bounded(window: AuditWindow): AuditWindow | string {
  const span = window.to.getTime() - window.from.getTime();
  if (span <= 0) return "the window ends before it begins: --from must be before --to";
  if (span > MAX_WINDOW_MS) return "the window is longer than 31 days: audit it in parts";
  return window;
}

function isoTime(text: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) return null;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
}
