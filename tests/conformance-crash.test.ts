import { describe, expect, it } from "vitest";
import { formatReport, runConformance } from "@checkout/conformance";
import { shopTarget } from "@checkout/conformance/shop";
import { useTestApp } from "./helpers/harness";

/**
 * The kit with a restart hook: the shop is killed (SIGKILL) while its charge
 * is held at the emulator's gate, the charge lands, the shop starts again,
 * and the retry of the key finds that one charge.
 */
const h = useTestApp({
  // Short, so the kit's retries retake the dead owner's claim within its wait.
  IDEMPOTENCY_IN_PROGRESS_TTL_MS: "8000",
  STRIPE_TIMEOUT_MS: "3000", // below the TTL
  STRIPE_MAX_NETWORK_RETRIES: "0",
});

describe("the conformance kit with a restart hook", () => {
  it("passes POST /api/checkout, a crash mid-charge included", async () => {
    const pids: number[] = [];
    const target = shopTarget("checkout", {
      url: h.url,
      emulator: { url: h.emulator.url, apiKey: h.emulator.apiKey },
      restart: {
        stop: async () => {
          pids.push(h.app.app.pid);
          await h.app.app.stop("SIGKILL");
        },
        start: async () => void (await h.app.restart()),
      },
      settleMs: 120_000,
    });
    const report = await runConformance(target);
    expect(
      report.checks.filter((c) => !c.pass).map((c) => c.name),
      formatReport(report),
    ).toEqual([]);
    expect(report.checks.map((c) => c.name)).toContain("crash.one-effect");
    expect(pids).toHaveLength(1); // the server really died once
    expect(await h.emulator.stat("gated")).toBe(2); // the dropped answer's charge and the crash's were held
    expect(h.app.app.pid).not.toBe(pids[0]);
  });
});
