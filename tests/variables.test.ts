/**
 * The variables are listed once: the app's schema (lib/env.ts) is the truth,
 * docs/contract.md §6 names each of them and the tooling's own, and
 * .env.example names exactly the schema's. Code that reads a variable the
 * contract does not name fails here.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ENV_VARIABLES } from "@/lib/env";

/** Set by Next.js, npm, Vitest or CI, never by whoever runs the shop. */
const PLATFORM = [
  "NODE_ENV",
  "NEXT_RUNTIME",
  "CI",
  "VITEST_POOL_ID",
  "PLAYWRIGHT_TEST_BASE_URL",
  "PLAYWRIGHT_DOWNLOAD_HOST",
];

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();
const appVariables = sorted(ENV_VARIABLES.filter((name) => !PLATFORM.includes(name)));

/** The variables `.env.example` names, set or commented out. */
function exampleVariables(): string[] {
  const lines = readFileSync(".env.example", "utf8").split("\n");
  return sorted(lines.flatMap((line) => /^#?\s*([A-Z][A-Z0-9_]*)=/.exec(line)?.[1] ?? []));
}

/** The backticked names in the first column of each table of the contract's §6 (before the scripts' table). */
function contractTables(): string[][] {
  const contract = readFileSync("docs/contract.md", "utf8");
  const section = contract.slice(contract.indexOf("## 6."), contract.indexOf("## 7."));
  const tables = section.split(/\n\n+/).filter((block) => block.startsWith("| variable |"));
  return tables.map((table) =>
    sorted(
      table
        .split("\n")
        .slice(2)
        .flatMap((row) => [...(row.split("|")[1] ?? "").matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!)),
    ),
  );
}

/** Every variable the tracked code reads from `process.env` by name. */
function variablesRead(): string[] {
  const out = execFileSync(
    "git",
    ["grep", "-h", "-o", "-E", "process\\.env\\.[A-Z][A-Z0-9_]*", "--", "*.ts", "*.tsx", "*.mjs"],
    {
      encoding: "utf8",
    },
  );
  return sorted(out.split("\n").flatMap((line) => /process\.env\.(\w+)/.exec(line)?.[1] ?? []));
}

describe("the variables, listed once", () => {
  it(".env.example names exactly the app schema's variables", () => {
    expect(appVariables.length).toBeGreaterThan(30);
    expect(exampleVariables()).toEqual(appVariables);
  });

  it("the contract's first table is the app schema's variables, its second the tooling's, none in both", () => {
    const [app, tooling] = contractTables();
    expect(app).toEqual(appVariables);
    expect(tooling!.length).toBeGreaterThan(5);
    expect(tooling!.filter((name) => app!.includes(name))).toEqual([]);
  });

  it("every variable the code reads is the schema's, the tooling's (as the contract names them) or the platform's", () => {
    const [app, tooling] = contractTables();
    const named = new Set([...app!, ...tooling!, ...PLATFORM]);
    const read = variablesRead();
    expect(read).toContain("EMBEDDED_PG_PORT");
    expect(read.filter((name) => !named.has(name))).toEqual([]);
  });
});
