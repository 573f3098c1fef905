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
 *   configuration; beside `unit`;
 * - `serial`: the journeys that kill servers or load the machine (crashes,
 *   several instances, the chaos soak, the Stripe smoke in Chromium against
 *   the demo), after the others.
 * Both cores: two workers for `serial`, three for `unit` and `app`, whose
 * tests mostly wait on the database or on servers they start; the files of
 * `unit` and `app` share their worker's process (`isolate: false`). `npm
 * test` runs each tier as a process of its own (scripts/test.mjs).
 */
const workers = 2;

/**
 * Files that need an app server (tests/app-server.ts, the demo, npm start);
 * the rest are `unit`. SERIAL's start in the order listed, longest first
 * (LongestFirst), so that the soak never starts last.
 */
const SERIAL = [
  "tests/chaos.test.ts",
  "tests/smoke-stripe.test.ts",
  "tests/demo-restart.test.ts",
  "tests/multi-instance.test.ts",
  "tests/restricted-key.test.ts",
  "tests/checkout-crash.test.ts",
  "tests/traces.test.ts",
  "tests/conformance-crash.test.ts",
  "tests/ops-refunds.test.ts",
  "tests/ops-refunds-reconcile.test.ts",
  "tests/ops-cancel.test.ts",
  "tests/conformance-package.test.ts",
  "tests/fleet-identity.test.ts",
  "tools/chaos/replicated-postgres.test.ts",
];
const APP = [
  "tests/card-declines.test.ts",
  "tests/delayed-methods.test.ts",
  "tests/bank-redirects-http.test.ts",
  "tests/delayed-catch-up.test.ts",
  "tests/chaos-shopper.test.ts",
  "tests/chaos-second-tab.test.ts",
  "tests/checkout-convergence.test.ts",
  "tests/checkout-faults.test.ts",
  "tests/checkout-http.test.ts",
  "tests/checkouts-http.test.ts",
  "tests/key-pair.test.ts",
  "tests/checkout-reconcile.test.ts",
  "tests/checkout-rows-lost.test.ts",
  "tests/checkout-slow-gateway.test.ts",
  "tests/front-door.test.ts",
  "tests/checkout-timeout.test.ts",
  "tests/client-address.test.ts",
  "tests/conformance.test.ts",
  "tests/logged.test.ts",
  "tests/demo.test.ts",
  "tests/dev.test.ts",
  "tests/events-catch-up.test.ts",
  "tests/lab-switch.test.ts",
  "tests/maintenance-first.test.ts",
  "tests/metrics.test.ts",
  "tests/npm-start.test.ts",
  "tests/only-the-shop-confirms.test.ts",
  "tests/ops.test.ts",
  "tests/ops-signin.test.ts",
  "tests/origin.test.ts",
  "tests/pooler.test.ts",
  "tests/probes.test.ts",
  "tests/proxy-body.test.ts",
  "tests/provider-budget.test.ts",
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
 * Files that start first in their tier, in this order: SERIAL's, then the
 * longest of the other tiers (as `npm test` prints their times), so that no
 * long file starts last and holds its tier up alone. Left to itself, on a
 * fresh clone Vitest starts the largest files first, which started the soak,
 * the longest journey, last, and the events catch-up's 5,000-event backlog,
 * the longest `unit` file, near the end of its tier.
 */
const FIRST = [
  ...SERIAL,
  "lib/webhooks/catch-up.test.ts",
  "tests/audit-command.test.ts",
  "tests/checkout-reconcile.test.ts",
  "tests/npm-start.test.ts",
  "tests/demo.test.ts",
  "tests/dev.test.ts",
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => FIRST.indexOf(path.relative(root, file.moduleId));
    const first = sorted.filter((file) => rank(file) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...first, ...sorted.filter((file) => rank(file) < 0)];
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
    sequence: { sequencer: LongestFirst },
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
        // A worker runs its files one after another in one process and module graph, not a new
        // process per file, which halves the tier's CPU time (docs/testing.md). Every file makes
        // its own clients; one that needs a configuration of its own loads its modules afresh
        // (importWithEnv, tests/helpers/env.ts).
        isolate: false,
      }),
      tier("app", {
        include: APP,
        globalSetup: ["tests/global-setup.ts", "tests/app-global-setup.ts"],
        // Three: its files spend most of their time waiting on servers they start.
        maxWorkers: workers + 1,
        isolate: false, // as in `unit`
      }),
      tier("serial", {
        include: SERIAL,
        globalSetup: ["tests/global-setup.ts", "tests/app-global-setup.ts"],
        maxWorkers: workers,
      }),
    ],
  },
});
