/**
 * A CPU profile of `next start` on demand, for performance work (not part of
 * the bench's figures). `--cpu-prof` is refused in NODE_OPTIONS and Next's
 * NEXT_CPU_PROF lost its profile on SIGTERM here, so this preload drives the
 * inspector's profiler itself: the first SIGUSR2 starts it, the next writes
 * `cpu-profile-<n>.cpuprofile` into CPU_PROFILE_DIR (default: the working
 * directory). Open the file in Chrome DevTools (Performance → Load profile).
 *
 *   NODE_OPTIONS="--import ./bench/tools/cpu-profile.mjs" npm run bench -- --reuse-build duplicates
 *   kill -USR2 <pid of next start>   # start … then again to stop and write
 *
 * Only `next start` processes are profiled; other processes ignore it.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import path from "node:path";

if (process.argv.includes("start")) {
  const session = new Session();
  session.connect();
  let profiling = false;
  let written = 0;
  process.on("SIGUSR2", () => {
    if (!profiling) {
      profiling = true;
      session.post("Profiler.enable", () =>
        session.post("Profiler.setSamplingInterval", { interval: 100 }, () => session.post("Profiler.start")),
      );
      return;
    }
    profiling = false;
    const file = path.join(process.env.CPU_PROFILE_DIR || ".", `cpu-profile-${process.pid}-${written++}.cpuprofile`);
    session.post("Profiler.stop", (err, result) => {
      if (err) console.error("cpu-profile:", err.message);
      else writeFileSync(file, JSON.stringify(result.profile));
    });
  });
}
