import { spawnSync } from "node:child_process";
import {
  BadChromiumPath,
  findBrowser,
  installPlan,
  isDebianLike,
  NO_BROWSER_MESSAGE,
  realBrowserProbes,
  type InstallStep,
} from "@/scripts/lib/browser";

/**
 * The first step of `npm test`, before any build: make sure Playwright has a
 * Chromium (see scripts/lib/browser.ts for the order it looks in), installing
 * one where this machine allows it; otherwise stop at once with one line.
 * playwright.config.ts then finds the same executable.
 */
/** Debian's package of the headless shell, first of SYSTEM_CHROMIUMS. */
const DEBIAN_PACKAGE = "chromium-headless-shell";

async function main(): Promise<number> {
  const probes = realBrowserProbes();
  const found = findBrowser(probes);
  if (found) {
    console.log(`Chromium for Playwright: ${found.executablePath ?? "Playwright's own"} (${found.source})`);
    return 0;
  }
  const isRoot = process.getuid?.() === 0;
  const plan = installPlan({ networkReachable: await playwrightHostReachable(), debianLike: isDebianLike(), isRoot });
  for (const step of plan) {
    console.log(
      `No Chromium found: trying ${step === "apt" ? `apt-get install ${DEBIAN_PACKAGE}` : "npx playwright install chromium"}`,
    );
    if (install(step, isRoot) && findBrowser(probes)) return 0;
  }
  console.error(NO_BROWSER_MESSAGE);
  return 1;
}

function install(step: InstallStep, isRoot: boolean): boolean {
  const run = (command: string, args: string[]) =>
    spawnSync(command, args, {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    }).status === 0;
  if (step === "playwright") {
    // As root on Debian/Ubuntu, also the shared libraries the downloaded browser needs.
    const withDeps = isRoot && isDebianLike() ? ["--with-deps"] : [];
    return run("npx", ["playwright", "install", ...withDeps, "chromium"]);
  }
  return run("apt-get", ["update", "-qq"]) && run("apt-get", ["install", "-y", "-qq", DEBIAN_PACKAGE]);
}

/** Whether Playwright's download host answers at all; a few seconds, never a hang. */
async function playwrightHostReachable(): Promise<boolean> {
  const host = process.env.PLAYWRIGHT_DOWNLOAD_HOST || "https://cdn.playwright.dev";
  try {
    await fetch(host, { method: "HEAD", signal: AbortSignal.timeout(5_000) });
    return true;
  } catch {
    return false;
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof BadChromiumPath ? err.message : err);
    process.exit(1);
  },
);
