import { accessSync, constants, readFileSync } from "node:fs";
import { chromium } from "@playwright/test";

/**
 * Which Chromium the end-to-end tests use, decided the same way by
 * `scripts/ensure-browser.ts` (which may install one) and by
 * `playwright.config.ts` (which only looks). The probes are injected so the
 * decision is unit-tested without touching the machine.
 */

/** Where a usable Chromium was found; `executablePath` undefined means Playwright's own (its default). */
export type FoundBrowser = { source: "CHROMIUM_PATH" | "system" | "playwright"; executablePath: string | undefined };

export type BrowserProbes = {
  env: Record<string, string | undefined>;
  isExecutable: (path: string) => boolean;
  /** Where Playwright's own Chromium lives (whether or not it is installed). */
  playwrightExecutable: () => string;
};

/**
 * Debian's headless shell first: Chromium's old headless mode, the one
 * Playwright itself runs headless journeys in. The same engine without the
 * browser around it, it costs a third less CPU over the end-to-end suite
 * (docs/testing.md).
 */
export const SYSTEM_CHROMIUMS = [
  "/usr/bin/chromium-headless-shell",
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
] as const;

/** `CHROMIUM_PATH` set to something that is not an executable: a mistake to report, not to route around. */
export class BadChromiumPath extends Error {}

/** CHROMIUM_PATH, then the system's Chromium, then Playwright's browser cache; null when there is none. */
export function findBrowser(probes: BrowserProbes): FoundBrowser | null {
  const configured = probes.env.CHROMIUM_PATH;
  if (configured) {
    if (!probes.isExecutable(configured)) {
      throw new BadChromiumPath(`CHROMIUM_PATH=${configured} is not an executable file: fix it or unset it.`);
    }
    return { source: "CHROMIUM_PATH", executablePath: configured };
  }
  const system = SYSTEM_CHROMIUMS.find((path) => probes.isExecutable(path));
  if (system) return { source: "system", executablePath: system };
  if (probes.isExecutable(probes.playwrightExecutable())) return { source: "playwright", executablePath: undefined };
  return null;
}

export type InstallProbes = {
  /** Playwright's download host answers (checked with a short timeout). */
  networkReachable: boolean;
  /** Debian or Ubuntu, by /etc/os-release. */
  debianLike: boolean;
  isRoot: boolean;
};

export type InstallStep = "playwright" | "apt";

/**
 * The ways to get a browser on this machine, in order: Playwright's own
 * download where the network allows it (with its system libraries when apt is
 * ours to use), else Debian's package as root.
 */
export function installPlan(probes: InstallProbes): InstallStep[] {
  const plan: InstallStep[] = [];
  if (probes.networkReachable) plan.push("playwright");
  if (probes.debianLike && probes.isRoot) plan.push("apt");
  return plan;
}

/** The one line `npm test` stops with when no browser can be had. */
export const NO_BROWSER_MESSAGE =
  "npm test needs Chromium and none could be found or installed: install it (Debian/Ubuntu: `apt-get install chromium-headless-shell`; elsewhere: `npx playwright install chromium`) or set CHROMIUM_PATH to a Chromium or Chrome executable.";

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function realBrowserProbes(env: Record<string, string | undefined> = process.env): BrowserProbes {
  return { env, isExecutable, playwrightExecutable: () => chromium.executablePath() };
}

export function isDebianLike(): boolean {
  try {
    const release = readFileSync("/etc/os-release", "utf8");
    return /^(ID|ID_LIKE)=.*\b(debian|ubuntu)\b/m.test(release);
  } catch {
    return false;
  }
}
