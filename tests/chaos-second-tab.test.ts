import { describe, expect, it } from "vitest";
import { Journal } from "@/tools/chaos/journal";
import { createRandom } from "@/tools/chaos/random";
import { secondTab } from "@/tools/chaos/second-tab";
import { useTestApp } from "./helpers/harness";

/**
 * The soak's "second tab" fault against a real shop: two independent tabs of
 * one shopper pressing Pay on one checkout make one payment, and the fault is
 * seen (the second tab was led to the first's payment).
 */
const h = useTestApp();

describe("the second-tab fault", () => {
  it("makes two tabs press Pay on one checkout: one payment, the other tab led to it", async () => {
    const journal = new Journal();
    expect(await secondTab(h.url, journal, createRandom(46))).toBe(true);
    const ledger = await h.emulator.ledger();
    expect(ledger.map((pi) => pi.status)).toEqual(["succeeded"]);
    const tabs = [...journal.attempts.values()];
    expect(tabs.map((t) => t.behaviours)).toEqual([["second_tab"], ["second_tab"]]);
    expect(tabs.map((t) => t.outcome).sort()).toEqual(["led_to_payment:paid", "paid"]);
    const payer = tabs.find((t) => t.outcome === "paid")!;
    expect(ledger[0]!.metadata.idempotencyKey).toBe(payer.id);
  });
});
