// npm run chaos — a thousand checkouts through every fault at once (docs/reliability.md).
// Three instances behind a round-robin proxy, one database, the Stripe
// emulator; seeded faults; then convergence and the invariant checker.
// Exit 0: no violation. Exit 1: violations (printed with their evidence).
import "@/scripts/lib/dotenv";
import { ConfigError } from "@/lib/env";
import { parseOptions, UsageError } from "./options";
import { table, violationReport, writeResults, writeViolations } from "./report";
import { runSoak } from "./soak";

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
  if (violations.length === 0) {
    log(`no violations · reproduce with: npm run chaos -- --attempts ${options.attempts} --seed ${options.seed}`);
    return 0;
  }
  const details = options.out.replace(/\.json$/, "") + ".violations.json";
  await writeViolations(details, result);
  console.error(`\n${violations.length} violation(s):\n${violationReport(violations, result.journal.attempts)}`);
  console.error(`\nEvery violation with its attempt's full journal: ${details}`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof UsageError || err instanceof ConfigError ? err.message : err);
    process.exit(2);
  },
);
