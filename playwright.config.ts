import { register } from "node:module";
import { defineConfig, devices } from "@playwright/test";
import { findBrowser, realBrowserProbes } from "./scripts/lib/browser";

/**
 * End-to-end tests drive a production build in Chromium: CHROMIUM_PATH, the
 * system's, or Playwright's own, the one `scripts/ensure-browser.ts` (the first
 * step of `npm test`) found or installed. e2e/global-setup.ts starts the
 * database and the emulator once per run; each worker runs its own server
 * with an emulator account of its own (e2e/fixtures.ts), so journeys run side
 * by side on both cores. Journeys tagged `@serial` (a server killed, a
 * reconciler sweeping the whole database) run after the others, one at a time.
 */
// The global setup starts the stack from server modules marked `server-only`.
register("./scripts/lib/allow-server-only.mjs", import.meta.url);

const launchOptions = {
  executablePath: findBrowser(realBrowserProbes())?.executablePath,
  args: [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
  ],
};

export default defineConfig({
  testDir: "e2e",
  globalSetup: "./e2e/global-setup.ts",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: true,
  workers: 2, // both cores
  forbidOnly: !!process.env.CI,
  retries: 0,
  reporter: [["list"]],
  // baseURL: the worker's server (the workerApp fixture). No trace: recording one for every
  // journey cost a third of Playwright's CPU time (docs/testing.md); to see a failing journey
  // step by step, run it again with `--trace retain-on-failure`. A screenshot of the page at
  // the failure costs nothing until then.
  use: { trace: "off", screenshot: "only-on-failure" },
  projects: [
    {
      name: "chromium",
      testIgnore: ["phone.spec.ts"],
      grepInvert: /@serial|@page-speed/,
      use: { ...devices["Desktop Chrome"], launchOptions },
    },
    {
      // A phone: touch, 360 px wide, the same Chromium. The journeys tagged
      // `@phone`, where a phone differs: a double tap, a network that drops, a
      // reload; the shop holds at 360 px; and axe on every page at that width.
      name: "phone",
      grep: /@phone/,
      grepInvert: /@serial|@page-speed/,
      use: { ...devices["Galaxy S8"], launchOptions },
    },
    {
      // After the others, one at a time: the journeys that kill a server or
      // run a reconciler over the whole database, which every worker shares.
      name: "serial",
      grep: /@serial/,
      testIgnore: ["phone.spec.ts"],
      dependencies: ["chromium", "phone"],
      workers: 1,
      use: { ...devices["Desktop Chrome"], launchOptions },
    },
    {
      // The speed budget, alone: `npm test` runs it as its last step, once every other step
      // has ended, so Lighthouse's timings are the page's and not the soak's next to it.
      name: "page-speed",
      grep: /@page-speed/,
      dependencies: ["serial"],
      workers: 1,
      use: { ...devices["Desktop Chrome"], launchOptions },
    },
  ],
});
