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

const executablePath = findBrowser(realBrowserProbes())?.executablePath;
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
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: {
          executablePath,
          args: [
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-quic",
          ],
        },
      },
    },
  ],
});
