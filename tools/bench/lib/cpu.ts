import { existsSync, readFileSync } from "node:fs";

/**
 * CPU time spent by the app server, by PostgreSQL (the postmaster, its live
 * backends and the ones it has reaped) and by this process (load generator,
 * emulator, in-process scenarios), read from /proc. On a machine where the
 * load generator and the server share two cores, throughput is CPU divided
 * by CPU per request, so these say which side a figure is made of.
 * Linux only; elsewhere, and for a DATABASE_URL server, the meters are absent.
 */
export interface CpuMeters {
  app?: () => number;
  database?: () => number;
  bench: () => number;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

export function cpuMeters(appPid: number, postmasterPid: number | null): CpuMeters {
  const bench = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  if (!existsSync(`/proc/${appPid}/stat`)) return { bench };
  return {
    app: () => ticks(appPid, false) * TICK_MS,
    ...(postmasterPid === null
      ? {}
      : {
          database: () =>
            (ticks(postmasterPid, true) + children(postmasterPid).reduce((sum, pid) => sum + ticks(pid, false), 0)) *
            TICK_MS,
        }),
    bench,
  };
}

/** utime + stime (+ cutime + cstime: children already exited and waited for). */
function ticks(pid: number, withReaped: boolean): number {
  try {
    // Fields after the parenthesised command name; utime is field 14 overall.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    const at = (field: number) => Number(fields[field - 3]);
    return at(14) + at(15) + (withReaped ? at(16) + at(17) : 0);
  } catch {
    return 0; // the process exited between listing and reading
  }
}

function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** CPU milliseconds each meter spends while `work` runs. */
export async function cpuDuring<T>(
  meters: Partial<CpuMeters>,
  work: () => Promise<T>,
): Promise<{ result: T; cpuMs: Record<string, number> }> {
  const entries = Object.entries(meters).filter((e): e is [string, () => number] => e[1] !== undefined);
  const before = entries.map(([, read]) => read());
  const result = await work();
  const cpuMs = Object.fromEntries(entries.map(([name, read], i) => [name, read() - before[i]!]));
  return { result, cpuMs };
}
