import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { activeAlarms, clearAlarms } from "../alarms";
import { checkKeyPair, forgetKeyPair, keyPairProblem, KEYS_OF_TWO_ACCOUNTS, probeKeyPair } from "./key-pair";
import { createStripeClient } from "./stripe-client";

let emulator: StripeEmulator;
beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(() => {
  forgetKeyPair();
  clearAlarms();
});

/** A fresh emulator account: its secret key and the publishable key of the same account. */
async function account() {
  const secretKey = `sk_test_pair_${randomUUID().replaceAll("-", "")}`;
  await new EmulatorClient(emulator.url, { apiKey: secretKey }).reset();
  return { secretKey, publishableKey: secretKey.replace(/^sk_/, "pk_") };
}

const client = (secretKey: string) => createStripeClient({ secretKey, apiBase: emulator.url, maxNetworkRetries: 0 });

describe("the publishable and the secret key", () => {
  it("of one account are found so", async () => {
    const own = await account();
    expect(await probeKeyPair(client(own.secretKey), own.publishableKey, emulator.url)).toBe("same_account");
  });

  it("of two accounts are found so: the token Stripe.js makes is unknown to the secret key", async () => {
    const [shop, other] = [await account(), await account()];
    expect(await probeKeyPair(client(shop.secretKey), other.publishableKey, emulator.url)).toBe("two_accounts");
  });

  it("prove nothing when the token cannot be made or read", async () => {
    const own = await account();
    expect(await probeKeyPair(client(own.secretKey), "sk_test_not_publishable", emulator.url)).toBe("unknown");
    const unreadable = await new EmulatorClient(emulator.url, { apiKey: own.secretKey }).restrictedKey({
      payment_intents: "write",
    });
    expect(await probeKeyPair(client(unreadable.id), own.publishableKey, emulator.url)).toBe("unknown");
  });

  it("of two accounts raise the alarm and are the reason to show, checked once a minute at most", async () => {
    const logged: string[] = [];
    let probes = 0;
    const probe = async () => {
      probes += 1;
      return "two_accounts" as const;
    };
    const [first, second] = await Promise.all([
      checkKeyPair(probe, (line) => logged.push(line), 1_000),
      checkKeyPair(probe, (line) => logged.push(line), 1_000),
    ]);
    expect([first, second]).toEqual(["two_accounts", "two_accounts"]);
    expect(await checkKeyPair(probe, (line) => logged.push(line), 30_000)).toBe("two_accounts");
    expect(probes).toBe(1); // shared while running, answered from the verdict within the minute
    expect(logged).toEqual([KEYS_OF_TWO_ACCOUNTS]);
    expect(keyPairProblem()).toBe(KEYS_OF_TWO_ACCOUNTS);
    expect(activeAlarms().map((alarm) => alarm.kind)).toContain("keys_of_two_accounts");
    expect(KEYS_OF_TWO_ACCOUNTS).toMatch(/^NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY .*STRIPE_SECRET_KEY/);

    // Fixed keys (a restart with the right one) clear it; an inconclusive probe keeps what was known.
    expect(
      await checkKeyPair(
        async () => "unknown",
        () => {},
        120_000,
      ),
    ).toBe("two_accounts");
    expect(
      await checkKeyPair(
        async () => "same_account",
        () => {},
        240_000,
      ),
    ).toBe("same_account");
    expect(keyPairProblem()).toBeNull();
  });
});
