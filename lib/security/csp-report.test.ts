import { describe, expect, it } from "vitest";
import { CspLogSample, type CspViolation } from "./csp-report";

const T0 = 1_700_000_040_000; // the start of a minute
const violation = (page: string): CspViolation => ({
  page,
  directive: "script-src-elem",
  blocked: "https://evil.example",
  disposition: "enforce",
});

describe("the sample of CSP violations logged", () => {
  it("logs the first of each kind in a minute, at most its lines in all, and says how many it left out", () => {
    const sample = new CspLogSample(3, 60_000);
    const logged = (page: string, at = T0) => sample.admit(violation(page), at).log;
    expect([logged("/a"), logged("/a"), logged("/b"), logged("/a")]).toEqual([true, false, true, false]);
    expect([logged("/c"), logged("/d"), logged("/e")]).toEqual([true, false, false]);
    // The next minute: the count of those left out, once, and the kinds logged anew.
    expect(sample.admit(violation("/a"), T0 + 60_000)).toEqual({ log: true, droppedBefore: 4 });
    expect(sample.admit(violation("/b"), T0 + 60_001)).toEqual({ log: true, droppedBefore: 0 });
  });
});
