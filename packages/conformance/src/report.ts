import type { Report } from "./target";

/** The report as a table a person reads: one line per property, what was seen beside it. */
export function formatReport(report: Report): string {
  const width = Math.max(...report.checks.map((c) => c.name.length), 4);
  const lines = [
    `${report.target}: ${report.pass ? "PASS" : "FAIL"}`,
    ...report.checks.map((c) => `  ${c.pass ? "pass" : "FAIL"}  ${c.name.padEnd(width)}  ${c.detail}`),
    ...report.notRun.map((name) => `  ----  ${name}: not run`),
  ];
  const broken = report.checks.filter((c) => !c.pass).map((c) => c.name);
  if (broken.length) lines.push(`broken: ${broken.join(", ")}`);
  return lines.join("\n");
}

/** The report as `--json` prints it: `{ target, pass, checks: [{ name, pass, detail }] }`. */
export function reportJson(report: Report): string {
  const { target, pass, checks } = report;
  return JSON.stringify({ target, pass, checks }, null, 2);
}
