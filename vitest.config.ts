import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Three tiers (Vitest projects), described in docs/testing.md:
 * - `unit`: pure units and the database tests, no app server and no build
 *   (`npm run test:fast` runs it, with format, lint and typecheck);
 * - `app`: tests through HTTP against the production build, one shared
 *   `next start` per worker plus servers of their own for files that test a
 *   configuration; after `unit`;
 * - `serial`: the journeys that kill servers or load the machine (crashes,
 *   several instances, the chaos soak, the Stripe smoke in Chromium against
 *   the demo), after the others.
 * Both cores: two workers, and three for `unit`, whose tests mostly wait on
 * the database. `npm test` runs each tier as a process of its own
 * (scripts/test.mjs).
 */
const workers = 2;

/**
 * Files that need an app server (tests/app-server.ts, the demo, npm start);
 * the rest are `unit`. SERIAL's start in the order listed, longest first
 * (SerialOrder), so that the soak never starts last.
 */
const SERIAL = [
  "tests/chaos.test.ts",
  "tests/smoke-stripe.test.ts",
  "tests/restricted-key.test.ts",
  "tests/multi-instance.test.ts",
  "tests/checkout-crash.test.ts",
  "tools/chaos/replicated-postgres.test.ts",
];
const APP = [
  "tests/card-declines.test.ts",
  "tests/checkout-convergence.test.ts",
  "tests/checkout-faults.test.ts",
  "tests/checkout-http.test.ts",
  "tests/checkout-reconcile.test.ts",
  "tests/checkout-rows-lost.test.ts",
  "tests/checkout-slow-gateway.test.ts",
  "tests/checkout-timeout.test.ts",
  "tests/client-address.test.ts",
  "tests/logged.test.ts",
  "tests/demo.test.ts",
  "tests/dev.test.ts",
  "tests/events-catch-up.test.ts",
  "tests/lab-switch.test.ts",
  "tests/maintenance-first.test.ts",
  "tests/metrics.test.ts",
  "tests/npm-start.test.ts",
  "tests/ops.test.ts",
  "tests/origin.test.ts",
  "tests/pooler.test.ts",
  "tests/probes.test.ts",
  "tests/proxy-body.test.ts",
  "tests/provider-refusals.test.ts",
  "tests/rate-limits.test.ts",
  "tests/security-headers.test.ts",
  "tests/two-shops.test.ts",
  "tests/webhooks-delivery.test.ts",
  "tests/webhooks-inbox.test.ts",
  "tests/webhooks-unstorable.test.ts",
  "tests/webhooks.test.ts",
];

const root = fileURLToPath(new URL("./", import.meta.url));

/**
 * The `serial` files start in the order SERIAL lists them; the rest as
 * Vitest orders them. Left to itself, on a fresh clone Vitest starts the
 * largest files first, which started the soak, the longest journey, last.
 */
class SerialOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => SERIAL.indexOf(path.relative(root, file.moduleId));
    // The serial files take the places Vitest gave them, in SERIAL's order.
    const serial = sorted.filter((file) => rank(file) >= 0).sort((a, b) => rank(a) - rank(b));
    return sorted.map((file) => (rank(file) >= 0 ? serial.shift()! : file));
  }
}

const shared: TestProjectInlineConfiguration["test"] = {
  // Fails a test that logs console.error/warn it did not expect (tests/helpers/console.ts).
  setupFiles: ["tests/setup/fail-on-console.ts"],
  pool: "forks",
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

function tier(name: string, test: TestProjectInlineConfiguration["test"]): TestProjectInlineConfiguration {
  return { extends: true, test: { name, ...shared, ...test } };
}

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@\//, replacement: root },
      // Server modules are marked `import "server-only"`; tests run them outside Next (see scripts/lib/allow-server-only.mjs).
      {
        find: /^server-only$/,
        replacement: fileURLToPath(new URL("./node_modules/server-only/empty.js", import.meta.url)),
      },
    ],
  },
  test: {
    sequence: { sequencer: SerialOrder },
    projects: [
      tier("unit", {
        include: [
          "lib/**/*.test.ts",
          "scripts/**/*.test.ts",
          "tools/**/*.test.ts",
          "packages/**/*.test.ts",
          "app/**/*.test.ts",
          "tests/**/*.test.ts",
        ],
        exclude: [...APP, ...SERIAL, "**/node_modules/**"],
        globalSetup: ["tests/global-setup.ts"],
        maxWorkers: workers + 1,
      }),
      tier("app", {
        include: APP,
        globalSetup: ["tests/global-setup.ts", "tests/app-global-setup.ts"],
        maxWorkers: workers,
      }),
      tier("serial", {
        include: SERIAL,
        globalSetup: ["tests/global-setup.ts", "tests/app-global-setup.ts"],
        maxWorkers: workers,
      }),
    ],
  },
});
