import { describe, expect, it } from "vitest";
import { CARD_KINDS } from "@/tools/chaos/cards";
import { Journal } from "@/tools/chaos/journal";
import { createRandom } from "@/tools/chaos/random";
import { Shopper } from "@/tools/chaos/shopper";
import { useTestApp } from "./helpers/harness";

const h = useTestApp();
const card = (name: string) => CARD_KINDS.find((c) => c.name === name)!;

describe("the soak's shopper", () => {
  it("pays through the page's checkout machine: one charge per attempt, double presses and 3-D Secure included", async () => {
    const items = [{ sku: "tee-classic", quantity: 1 }];
    const cards = ["visa", "declined", "3ds_completed", "visa"];
    const outcomes: string[][] = [];
    const behaviours: string[] = [];
    // Every attempt double-presses; the seeds also draw cut connections and reloads, as the soak does.
    for (const seed of [3, 5]) {
      const journal = new Journal();
      const emulator = { url: h.emulator.url, publishableKey: "unused" };
      const shopper = new Shopper(h.url, journal, createRandom(seed), 100, emulator, "payment-method");
      await shopper.browser.arrive();
      for (const name of cards) expect(await shopper.checkout(items, card(name), 2500)).toBe(true);
      const attempts = [...journal.attempts.values()];
      outcomes.push(attempts.map((a) => a.outcome));
      behaviours.push(...attempts.flatMap((a) => a.behaviours));
      expect(attempts.every((a) => a.behaviours.includes("double_press"))).toBe(true);
    }
    expect(outcomes).toEqual([
      ["paid", "card_declined", "paid", "paid"],
      ["paid", "card_declined", "paid", "paid"],
    ]);
    expect(behaviours).toContain("complete_authentication");
    const ledger = await h.emulator.ledger();
    expect(ledger.filter((i) => i.status === "succeeded")).toHaveLength(6);
    expect(ledger).toHaveLength(8);
  });
});
