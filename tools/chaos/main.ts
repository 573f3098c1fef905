// npm run chaos — a thousand checkouts through every fault at once (docs/reliability.md).
// Three instances behind a round-robin proxy, one database, the Stripe
// emulator; seeded faults; then convergence and the invariant checker.
// With --second-shop, a second shop pays on the same account (second-shop.ts).
// Exit 0: no violation. Exit 1: violations (printed with their evidence).
import "@/scripts/lib/dotenv";
import { ConfigError } from "@/lib/env";
import { parseOptions, UsageError } from "./options";
import { crossShopReport, table, violationReport, writeResults, writeViolations } from "./report";
import { runSoak, type SoakResult } from "./soak";

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const started = Date.now();
  const log = (line: string) =>
    console.log(`[chaos ${String(Math.round((Date.now() - started) / 1000)).padStart(4)}s] ${line}`);
  const result = await runSoak(options, log);
  console.log("\n" + table(result) + "\n");
  await writeResults(options.out, result);
  log(`results    ${options.out}`);
  const { violations } = result.verdict;
  if (result.audit.disagreement !== null) {
    console.error(`\nThe shop's audit disagrees with the checker: ${result.audit.disagreement}`);
    return 1;
  }
  if (result.operator.findings.length > 0) {
    console.error(
      `\nThe operator's answers contradict Stripe's refunds:\n${result.operator.findings.map((f) => `  ${f}`).join("\n")}`,
    );
    return 1;
  }
  // The second shop's own failures are printed first; the soak's own verdict still decides its part below.
  const secondFailed = result.secondShop ? reportSecondShop(result.secondShop) : false;
  if (violations.length === 0) {
    if (secondFailed) return 1;
    log(
      `no violations · reproduce with: npm run chaos -- --attempts ${options.attempts} --seed ${options.seed}${options.secondShop ? " --second-shop" : ""}`,
    );
    return 0;
  }
  const details = options.out.replace(/\.json$/, "") + ".violations.json";
  await writeViolations(details, result);
  console.error(`\n${violations.length} violation(s):\n${violationReport(violations, result.journal.attempts)}`);
  console.error(`\nEvery violation with its attempt's full journal: ${details}`);
  return 1;
}

/** Prints what failed at the second shop (it did not converge, a cross-shop finding, its own violations); true if anything did. */
function reportSecondShop(second: NonNullable<SoakResult["secondShop"]>): boolean {
  let failed = false;
  if (!second.convergence.converged) {
    console.error(`\nThe second shop did not converge: ${JSON.stringify(second.convergence.open)}`);
    failed = true;
  }
  if (second.crossShop.findings.length > 0) {
    console.error(
      `\n${second.crossShop.findings.length} cross-shop finding(s):\n${crossShopReport(second.crossShop.findings)}`,
    );
    failed = true;
  }
  if (second.verdict.violations.length > 0) {
    console.error(
      `\nThe second shop's own checker: ${second.verdict.violations.length} violation(s):\n${violationReport(second.verdict.violations, second.journal.attempts)}`,
    );
    failed = true;
  }
  return failed;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof UsageError || err instanceof ConfigError ? err.message : err);
    process.exit(2);
  },
);
