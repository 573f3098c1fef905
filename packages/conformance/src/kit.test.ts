import { afterEach, describe, expect, it } from "vitest";
import { formatReport, reportJson, runConformance } from "./index";
import { startTestEndpoint, type Flaw, type TestEndpoint } from "./test-servers";

/**
 * The kit against endpoints on plain node:http whose flaws are known: it
 * passes the sound one and names exactly what each broken one breaks.
 */
let endpoint: TestEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

async function run(flaw?: Flaw) {
  endpoint = await startTestEndpoint(flaw);
  return runConformance(endpoint.target);
}

const broken = (report: Awaited<ReturnType<typeof run>>) => report.checks.filter((c) => !c.pass).map((c) => c.name);

describe("the conformance kit", () => {
  it("passes an endpoint that claims before it acts, crash included", async () => {
    const report = await run();
    expect(report.checks.map((c) => c.name)).toEqual([
      "key.missing",
      "key.malformed",
      "storm.one-effect",
      "storm.answers",
      "dropped-response.replay",
      "dropped-response.one-effect",
      "changed-body.nested",
      "changed-body.top-level",
      "subjects.no-leak",
      "crash.one-effect",
    ]);
    expect(broken(report), formatReport(report)).toEqual([]);
    expect(report.pass).toBe(true);
    expect(report.notRun).toEqual([]);
  });

  it("fails a check-then-act endpoint on the storm and the crash, naming them", async () => {
    const report = await run("check-then-act");
    expect(broken(report), formatReport(report)).toEqual(["storm.one-effect", "storm.answers", "crash.one-effect"]);
    // Every copy that arrived before the first effect ended acted too.
    const effects = Number(
      /: (\d+) effects;/.exec(report.checks.find((c) => c.name === "storm.one-effect")!.detail)?.[1],
    );
    expect(effects).toBeGreaterThan(1);
    expect(report.pass).toBe(false);
    expect(formatReport(report)).toContain("broken: storm.one-effect, storm.answers, crash.one-effect");
  });

  it("fails an endpoint that stores answers by key alone on the subjects, naming it", async () => {
    const report = await run("leaks-across-subjects");
    expect(broken(report), formatReport(report)).toEqual(["subjects.no-leak"]);
    expect(report.checks.find((c) => c.name === "subjects.no-leak")!.detail).toContain("got the first's answer");
  });

  it("leaves the crash out when no restart hook is given, and prints JSON as specified", async () => {
    endpoint = await startTestEndpoint();
    const { restart: _, ...target } = endpoint.target;
    const report = await runConformance(target);
    expect(report.checks.map((c) => c.name)).not.toContain("crash.one-effect");
    expect(report.notRun).toEqual(["crash.one-effect (needs the hold and restart hooks)"]);
    const json = JSON.parse(reportJson(report));
    expect(Object.keys(json)).toEqual(["target", "pass", "checks"]);
    expect(json.checks[0]).toEqual({ name: "key.missing", pass: true, detail: expect.any(String) });
  });
});
