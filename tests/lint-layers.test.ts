/**
 * The layers of eslint.config.mjs fail where they should: each rule is shown a
 * deliberate violation (linted as if it were a file of the tree, through
 * ESLint's Node API and the repository's own config) and must report it, and
 * the allowed neighbour of each violation must pass.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: process.cwd() });
});

/** The messages `rule` reports for `code` placed at `filePath`. */
async function reported(filePath: string, code: string, rule: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === rule).map((m) => m.message);
}

const PATHS = "import/no-restricted-paths";
const BROWSER = "@typescript-eslint/no-restricted-imports";
const DIRECTIVE = "no-restricted-syntax";

describe("the layers, enforced by lint", () => {
  it("production code imports no tooling, by alias or by relative path", async () => {
    expect(
      await reported("lib/payments/x.ts", `export { startStripeEmulator } from "@checkout/stripe-emulator";`, PATHS),
    ).toEqual([expect.stringContaining("Production code imports no tooling")]);
    expect(
      await reported("app/api/orders/x.ts", `export { startBenchStack } from "../../../tools/bench/lib/stack";`, PATHS),
    ).toEqual([expect.stringContaining("Production code imports no tooling")]);
    // Tooling may use production code.
    expect(await reported("scripts/x.ts", `export { env } from "@/lib/env";`, PATHS)).toEqual([]);
  });

  it("production code reaches the idempotency package only through its exports", async () => {
    expect(
      await reported("lib/checkout/x.ts", `export { IdempotencyEngine } from "@checkout/idempotency";`, PATHS),
    ).toEqual([]);
    expect(
      await reported(
        "lib/checkout/x.ts",
        `export { IdempotencyEngine } from "../../packages/idempotency/src/engine";`,
        PATHS,
      ),
    ).toEqual([expect.stringContaining("Reach packages/idempotency only through its package's exports")]);
    expect(
      await reported("app/api/x/route.ts", `export { withIdempotency } from "@checkout/idempotency/next";`, PATHS),
    ).toEqual([]);
  });

  it("production code imports no test code, while a test beside the code may", async () => {
    const code = `export { createOwnDatabase } from "@/tests/helpers/own-database";`;
    expect(await reported("lib/checkout/x.ts", code, PATHS)).toEqual([
      expect.stringContaining("Production code imports no test code"),
    ]);
    expect(await reported("lib/checkout/x.test.ts", code, PATHS)).toEqual([]);
  });

  it("the lab is reached only through its switch and its observer", async () => {
    expect(
      await reported("lib/checkout/x.ts", `export { recordLabEvent } from "@/lib/lab/server/event-log";`, PATHS),
    ).toEqual([
      expect.stringContaining("The lab is reached only through lib/lab/enabled.ts and lib/lab/server/attach.ts"),
    ]);
    expect(
      await reported("lib/checkout-client/x.ts", `export { labEventsQuery } from "@/lib/lab/browser/queries";`, PATHS),
    ).toEqual([expect.stringContaining("The lab is reached only through")]);
    expect(await reported("proxy.ts", `export { labEnabled } from "@/lib/lab/enabled";`, PATHS)).toEqual([]);
    expect(await reported("instrumentation.ts", `export { attachLab } from "@/lib/lab/server/attach";`, PATHS)).toEqual(
      [],
    );
    // Inside the lab, the lab's own folders are open.
    expect(
      await reported("app/api/lab/x/route.ts", `export { recordLabEvent } from "@/lib/lab/server/event-log";`, PATHS),
    ).toEqual([]);
  });

  it("the lab names the emulator client's types, and nothing else of tooling", async () => {
    const types = `import type { FaultPatch } from "@checkout/stripe-emulator/client";\nexport type P = FaultPatch;`;
    for (const file of ["lib/lab/x.ts", "lib/lab/server/x.ts", "lib/lab/browser/x.ts", "app/api/lab/x/route.ts"]) {
      expect(await reported(file, types, PATHS), file).toEqual([]);
      expect(await reported(file, types, BROWSER), file).toEqual([]);
    }
    expect(
      await reported(
        "lib/lab/server/x.ts",
        `export { EmulatorClient } from "@checkout/stripe-emulator/client";`,
        BROWSER,
      ),
    ).toEqual([expect.stringContaining("The lab names the Stripe emulator's client in `import type` only")]);
    expect(
      await reported(
        "lib/lab/browser/x.ts",
        `export { EmulatorClient } from "@checkout/stripe-emulator/client";`,
        BROWSER,
      ),
    ).toEqual([expect.stringContaining("The lab names the Stripe emulator's client in `import type` only")]);
    expect(
      await reported("lib/lab/server/x.ts", `export type { StripeEmulator } from "@checkout/stripe-emulator";`, PATHS),
    ).toEqual([expect.stringContaining("Production code imports no tooling")]);
    // Outside the lab, not even the types.
    expect(await reported("lib/payments/x.ts", types, PATHS)).toEqual([
      expect.stringContaining("Production code imports no tooling"),
    ]);
  });

  it("no route imports another route's folder; private folders are shared", async () => {
    expect(
      await reported("app/api/lab/lose-response/x.ts", `export { POST } from "@/app/api/checkout/route";`, PATHS),
    ).toEqual([expect.stringContaining("No route imports another route's folder")]);
    expect(await reported("app/api/checkout/[key]/return/x.ts", `export { POST } from "../../route";`, PATHS)).toEqual([
      expect.stringContaining("No route imports another route's folder"),
    ]);
    expect(await reported("app/checkout/x.tsx", `export { ReturnView } from "./return/return-view";`, PATHS)).toEqual([
      expect.stringContaining("No route imports another route's folder"),
    ]);
    expect(await reported("app/checkout/x.tsx", `export { CheckoutView } from "./checkout-view";`, PATHS)).toEqual([]);
    expect(
      await reported("app/orders/[id]/x.tsx", `export { OrderLines } from "@/app/_components/order-lines";`, PATHS),
    ).toEqual([]);
  });

  it("browser code imports only types from server modules", async () => {
    expect(
      await reported("lib/checkout-client/x.ts", `export { listOrders } from "@/lib/checkout/orders";`, BROWSER),
    ).toEqual([expect.stringContaining("Browser code imports only types from server modules")]);
    expect(
      await reported("app/checkout/x.tsx", `import { db } from "@/lib/db";\nexport const d = db;`, BROWSER),
    ).toEqual([expect.stringContaining("Browser code imports only types from server modules")]);
    // A relative path out of the folder would hide the module from that check.
    expect(
      await reported("lib/checkout-client/x.ts", `export { listOrders } from "../checkout/orders";`, BROWSER),
    ).toEqual([expect.stringContaining("Browser code reaches other folders through `@/…`")]);
    expect(
      await reported("lib/checkout-client/x.ts", `export type { OrderView } from "@/lib/checkout/orders";`, BROWSER),
    ).toEqual([]);
    expect(await reported("app/checkout/x.tsx", `export { formatMoney } from "@/lib/money";`, BROWSER)).toEqual([]);
    // Pages and routes are server code.
    expect(await reported("app/x/page.tsx", `export { db } from "@/lib/db";`, BROWSER)).toEqual([]);
  });

  it("a 'use client' module lives with the browser code", async () => {
    const client = `"use client";\nexport const x = 1;`;
    expect(await reported("lib/payments/x.ts", client, DIRECTIVE)).toEqual([
      expect.stringContaining("A 'use client' module is browser code"),
    ]);
    expect(await reported("app/x/page.tsx", client, DIRECTIVE)).toEqual([
      expect.stringContaining("A 'use client' module is browser code"),
    ]);
    expect(await reported("lib/checkout-client/x.ts", client, DIRECTIVE)).toEqual([]);
    expect(await reported("app/checkout/x.tsx", client, DIRECTIVE)).toEqual([]);
  });
});

describe("the claim's one home", () => {
  it("no production file writes idempotency_keys: claims, outcomes and cleanup are the package's", () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) return entry.name === "generated" ? [] : files(full);
        return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
      });
    const writes = /(insert\s+into|update|delete\s+from)\s+idempotency_keys/i;
    const scanned = [...files("lib"), ...files("app")];
    expect(scanned.length).toBeGreaterThan(100);
    expect(scanned.filter((file) => writes.test(readFileSync(file, "utf8")))).toEqual([]);
    expect(writes.test(readFileSync("packages/idempotency/src/engine.ts", "utf8"))).toBe(true);
  });
});
