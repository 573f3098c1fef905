import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { DEFAULT_EMULATOR_PORT, parseEmulatorPort } from "./port";
import { scratchDir } from "../../../tests/helpers/scratch";
import { startReceiver } from "./test-support";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Runs main.ts as `npm run stripe:emulator` does (through tsx), with the given port variable. */
function runMain(port: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
    cwd: ROOT,
    env: { ...process.env, STRIPE_EMULATOR_PORT: port, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, output: () => ({ stdout, stderr }) };
}

describe("parseEmulatorPort", () => {
  it.each([
    [undefined, DEFAULT_EMULATOR_PORT],
    ["", DEFAULT_EMULATOR_PORT],
    ["0", 0],
    ["8080", 8080],
    ["65535", 65535],
  ])("accepts %j", (raw, port) => {
    expect(parseEmulatorPort(raw)).toEqual({ ok: true, port });
  });

  it.each(["65536", "-1", "80.5", "abc", "12111x", "0x10"])("rejects %j, naming the variable", (raw) => {
    const result = parseEmulatorPort(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain("STRIPE_EMULATOR_PORT");
  });
});

describe("main.ts", () => {
  it("exits 1 with a clear message for a bad STRIPE_EMULATOR_PORT", async () => {
    const { child, output } = runMain("not-a-port");
    const [code] = await once(child, "exit");
    expect(code).toBe(1);
    expect(output().stderr).toContain("STRIPE_EMULATOR_PORT must be an integer between 0 and 65535");
  });

  it("listens, logs requests, and stops cleanly on SIGTERM", async () => {
    const { child, output } = runMain("0");
    const exited = once(child, "exit");
    const url = await listening(child, output);
    const res = await fetch(`${url}/_emulator/faults`);
    expect(res.status).toBe(200);
    await expect.poll(() => output().stdout).toContain("GET /_emulator/faults 200");

    child.kill("SIGTERM");
    const [code] = await exited;
    expect(code).toBe(0);
  });
});

/** The URL main.ts prints once it listens. */
function listening(
  child: ReturnType<typeof runMain>["child"],
  output: ReturnType<typeof runMain>["output"],
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", () => {
      const match = /Stripe emulator listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output().stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", () => reject(new Error(`main.ts exited early: ${output().stderr}`)));
  });
}

describe("main.ts webhooks", () => {
  it("exits 1 for a STRIPE_WEBHOOK_URL that is not http(s)", async () => {
    const { child, output } = runMain("0", { STRIPE_WEBHOOK_URL: "localhost:3000/hooks" });
    const [code] = await once(child, "exit");
    expect(code).toBe(1);
    expect(output().stderr).toContain("STRIPE_WEBHOOK_URL must be an http(s) URL");
  });

  it("delivers to STRIPE_WEBHOOK_URL, signed with STRIPE_WEBHOOK_SECRET", async () => {
    const receiver = await startReceiver();
    const { child, output } = runMain("0", {
      STRIPE_WEBHOOK_URL: receiver.url,
      STRIPE_WEBHOOK_SECRET: "whsec_from_env",
    });
    try {
      const url = new URL(await listening(child, output));
      const stripe = new Stripe("sk_test_main", { host: url.hostname, port: Number(url.port), protocol: "http" });
      const intent = await stripe.paymentIntents.create({ amount: 100, currency: "usd" });
      await expect.poll(() => receiver.received.length, { timeout: 5000 }).toBe(1);
      const delivery = receiver.received[0];
      const event = stripe.webhooks.constructEvent(delivery?.body ?? "", delivery?.signature ?? "", "whsec_from_env");
      expect(event).toMatchObject({ type: "payment_intent.created", data: { object: { id: intent.id } } });
    } finally {
      if (child.exitCode === null) {
        const exited = once(child, "exit");
        child.kill("SIGTERM");
        await exited;
      }
      await receiver.close();
    }
  });
});

describe("main.ts state file", () => {
  it("keeps the ledger in STRIPE_EMULATOR_STATE across a restart, and refuses a file it cannot read in one line", async () => {
    const file = path.join(await scratchDir("emulator-main-"), "state");
    const run = async () => {
      const { child, output } = runMain("0", { STRIPE_EMULATOR_STATE: file });
      const url = new URL(await listening(child, output));
      expect(output().stdout).toContain(`records kept in ${file}`);
      const stripe = new Stripe("sk_test_main", { host: url.hostname, port: Number(url.port), protocol: "http" });
      return { stripe, stop: async () => (child.kill("SIGTERM"), (await once(child, "exit"))[0]) };
    };
    const first = await run();
    const intent = await first.stripe.paymentIntents.create({ amount: 100, currency: "usd" });
    expect(await first.stop()).toBe(0);
    const second = await run();
    expect((await second.stripe.paymentIntents.list()).data.map((pi) => pi.id)).toEqual([intent.id]);
    expect(await second.stop()).toBe(0);

    await writeFile(file, "not the emulator's");
    const { child, output } = runMain("0", { STRIPE_EMULATOR_STATE: file });
    expect((await once(child, "exit"))[0]).toBe(1);
    expect(output().stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^STRIPE_EMULATOR_STATE: .* is not a state file of this emulator .*move it away/),
    ]);
  });
});
