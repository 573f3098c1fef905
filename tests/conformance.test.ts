import { describe, expect, it } from "vitest";
import { formatReport, runConformance, type Report } from "@checkout/conformance";
import { shopTarget, type ShopEndpoint } from "@checkout/conformance/shop";
import { useTestApp } from "./helpers/harness";

/**
 * The conformance kit against the shop over HTTP (`npm run conformance` runs
 * the same against a running shop): the checkout keeps every property the kit
 * checks without a restart hook; the lab's naive route breaks all but one,
 * and the kit names them.
 */
const h = useTestApp({ LAB_NAIVE_ENDPOINT: "1" });

const run = (endpoint: ShopEndpoint) =>
  runConformance(shopTarget(endpoint, { url: h.url, emulator: { url: h.emulator.url, apiKey: h.emulator.apiKey } }));
const broken = (report: Report) => report.checks.filter((c) => !c.pass).map((c) => c.name);

describe("the conformance kit against the shop", () => {
  it("passes POST /api/checkout", async () => {
    const report = await run("checkout");
    expect(broken(report), formatReport(report)).toEqual([]);
    expect(report.checks).toHaveLength(9);
    expect(report.notRun).toEqual(["crash.one-effect (needs the hold and restart hooks)"]);
    // The dropped answer was held at the emulator's gate, so the kit really cut it before it was written.
    expect(await h.emulator.stat("gated")).toBe(1);
  });

  it("fails the lab's naive route, naming every property it breaks", async () => {
    const report = await run("naive");
    expect(broken(report), formatReport(report)).toEqual([
      "key.missing",
      "key.malformed",
      "storm.one-effect",
      "storm.answers",
      "dropped-response.replay",
      "dropped-response.one-effect",
      "changed-body.nested",
      "changed-body.top-level",
    ]);
    expect(report.pass).toBe(false);
    // Every copy charged, and so did the kit's one more asking for the stored answer.
    expect(report.checks.find((c) => c.name === "storm.one-effect")!.detail).toMatch(/: 31 effects;/);
  });
});
