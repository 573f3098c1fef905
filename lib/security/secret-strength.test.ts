import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { secretWeakness } from "./secret-strength";

/** The values .env.example shows for a variable, commented out or not. */
function examplesOf(variable: string): string[] {
  const lines = readFileSync(".env.example", "utf8").split("\n");
  return lines.flatMap((line) => {
    const match = new RegExp(`^#?\\s*${variable}=(.+)$`).exec(line.trim());
    return match ? [match[1]!.trim()] : [];
  });
}

describe("a secret's strength", () => {
  it.each([
    ["32 random bytes, hex", randomBytes(32).toString("hex")],
    ["32 random bytes, base64", randomBytes(32).toString("base64")],
    ["32 random bytes, base64url without padding", randomBytes(32).toString("base64url")],
    ["64 random bytes, hex", randomBytes(64).toString("hex")],
  ])("accepts %s", (_, value) => {
    expect(secretWeakness(value)).toBeNull();
  });

  it.each([
    ["32 × a", "a".repeat(32), /^is 16 bytes/],
    ["64 × a (32 bytes of one value)", "a".repeat(64), /^is not random/],
    ["a counting pattern", "0123456789abcdef".repeat(4), /^is not random/],
    ["16 random bytes", randomBytes(16).toString("hex"), /^is 16 bytes/],
    ["a passphrase", "correct horse battery staple, twice over", /^is neither hex nor base64/],
    ["a word in it", `changeme${randomBytes(32).toString("hex")}`, /^is a placeholder/],
  ])("refuses %s, saying why and how to make one", (_, value, reason) => {
    const weakness = secretWeakness(value);
    expect(weakness).toMatch(reason);
    expect(weakness).toContain("openssl rand -hex 32");
  });

  it.each(["SESSION_SECRET", "METRICS_TOKEN"])("refuses every example value .env.example shows for %s", (variable) => {
    const examples = examplesOf(variable);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) expect(secretWeakness(example), example).not.toBeNull();
  });
});
