/**
 * Content-Security-Policy violation reports, as browsers send them to the
 * page's `report-uri` (`application/csp-report`: `{ "csp-report": {…} }`) or
 * its `report-to` endpoint (`application/reports+json`: `[{ type:
 * "csp-violation", body: {…} }]`). What is kept of one is what an operator
 * needs to find the cause and nothing a shopper typed: the page's path (no
 * query: the 3-D Secure return's carries a client secret), the directive,
 * and the blocked resource's origin (or keyword such as `inline`).
 */
export const CSP_REPORT_PATH = "/api/csp-report";
/** The `report-to` group the pages' CSP names (Reporting-Endpoints). */
export const CSP_REPORT_GROUP = "csp";
/** A browser's report is well under 4 KiB; a few batched ones fit. */
export const MAX_CSP_REPORT_BYTES = 8 * 1024;
/** Reports read from one body at most: the rest of a batch is dropped. */
const MAX_REPORTS_PER_BODY = 10;

export interface CspViolation {
  page: string | null;
  directive: string | null;
  blocked: string | null;
  disposition: string | null;
}

/** The violations a report body names, or null when it is not a CSP report of either form. */
export function parseCspReports(body: unknown): CspViolation[] | null {
  if (isObject(body) && isObject(body["csp-report"])) return [violationOf(body["csp-report"], "legacy")];
  if (!Array.isArray(body)) return null;
  const reports = body
    .filter((r): r is Record<string, unknown> => isObject(r) && r.type === "csp-violation" && isObject(r.body))
    .slice(0, MAX_REPORTS_PER_BODY)
    .map((r) => violationOf(r.body as Record<string, unknown>, "reporting"));
  return reports.length > 0 || body.length === 0 ? reports : null;
}

function violationOf(report: Record<string, unknown>, form: "legacy" | "reporting"): CspViolation {
  const field = (legacy: string, reporting: string) => {
    const value = report[form === "legacy" ? legacy : reporting];
    return typeof value === "string" ? value : null;
  };
  return {
    page: pathOf(field("document-uri", "documentURL")),
    directive:
      (field("effective-directive", "effectiveDirective") ?? field("violated-directive", "effectiveDirective"))
        ?.split(" ")[0]
        ?.slice(0, 64) ?? null,
    blocked: originOf(field("blocked-uri", "blockedURL")),
    disposition: field("disposition", "disposition")?.slice(0, 16) ?? null,
  };
}

/** The path of a URL, without its query or fragment. */
function pathOf(value: string | null): string | null {
  if (!value) return null;
  try {
    return new URL(value).pathname.slice(0, 200);
  } catch {
    return null;
  }
}

/** A URL's origin, or the keyword a browser reports instead (`inline`, `eval`, `data`…). */
function originOf(value: string | null): string | null {
  if (!value) return null;
  if (/^[a-z-]{1,32}$/.test(value)) return value;
  try {
    const url = new URL(value);
    return url.origin === "null" ? url.protocol.replace(/:$/, "") : url.origin;
  } catch {
    return null;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Violation lines logged at most per window, whatever the number of reports. */
export const CSP_LOG_LINES_PER_WINDOW = 20;
const CSP_LOG_WINDOW_MS = 60_000;

/**
 * Which violations are logged (docs/decisions/0020-a-budget-a-few-cannot-drain.md):
 * in each minute, the first of each kind (page, directive, blocked resource)
 * and at most CSP_LOG_LINES_PER_WINDOW lines in all; the others are counted,
 * and their number logged once when the next minute's first report comes. A
 * flood of reports, from however many addresses, writes a few lines a minute.
 */
export class CspLogSample {
  private window = Number.NEGATIVE_INFINITY;
  private kinds = new Set<string>();
  private lines = 0;
  private dropped = 0;

  constructor(
    private readonly linesPerWindow = CSP_LOG_LINES_PER_WINDOW,
    private readonly windowMs = CSP_LOG_WINDOW_MS,
    private readonly maxKinds = 1_000,
  ) {}

  /** Whether to log `violation` at `now`; `droppedBefore`: how many the last window left out, once. */
  admit(violation: CspViolation, now = Date.now()): { log: boolean; droppedBefore: number } {
    let droppedBefore = 0;
    const window = Math.floor(now / this.windowMs);
    if (window !== this.window) {
      droppedBefore = this.dropped;
      this.window = window;
      this.kinds = new Set();
      this.lines = 0;
      this.dropped = 0;
    }
    const kind = `${violation.page} ${violation.directive} ${violation.blocked} ${violation.disposition}`;
    if (this.kinds.has(kind) || this.lines >= this.linesPerWindow || this.kinds.size >= this.maxKinds) {
      this.dropped++;
      return { log: false, droppedBefore };
    }
    this.kinds.add(kind);
    this.lines++;
    return { log: true, droppedBefore };
  }
}
