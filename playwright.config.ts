import { register } from "node:module";
import { defineConfig, devices } from "@playwright/test";
import { E2E } from "./e2e/settings";
import { findBrowser, realBrowserProbes } from "./scripts/lib/browser";

/**
 * End-to-end tests drive a production build in Chromium: CHROMIUM_PATH, the
 * system's, or Playwright's own, the one `scripts/ensure-browser.ts` (the first
 * step of `npm test`) found or installed. e2e/global-setup.ts starts the
 * database, the emulator and the server once per run.
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
  // One worker: tests inject faults into the one shared emulator (latency,
  // dropped connections), which would leak into tests running beside them.
  fullyParallel: false,
  workers: 1,
  forbidOnly: !!process.env.CI,
  retries: 0,
  reporter: [["list"]],
  use: {
    baseURL: E2E.appUrl,
    trace: "retain-on-failure",
  },
  projects: [
    {
      name: "chromium",
      testIgnore: ["phone.spec.ts"],
      use: { ...devices["Desktop Chrome"], launchOptions },
    },
    {
      // A phone: touch, 360 px wide, the same Chromium. The journeys where a
      // phone differs: a double tap, a network that drops, a reload; the shop
      // holds at 360 px; and axe on every page at that width.
      name: "phone",
      testMatch: [
        "phone.spec.ts",
        "accessibility.spec.ts",
        "reliability/double-submit.spec.ts",
        "reliability/lost-response.spec.ts",
        "slow-gateway.spec.ts",
      ],
      grep: [/360 px phone/, /accessibility violation/, /double click that lands/, /offline/, /reload/i],
      use: { ...devices["Galaxy S8"], launchOptions },
    },
  ],
});
