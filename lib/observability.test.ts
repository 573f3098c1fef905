import { afterEach, describe, expect, it } from "vitest";
import { observability, observe, onObserve, type Observation } from "./observability";

let unsubscribe = () => {};
afterEach(() => unsubscribe());

describe("observation events", () => {
  it("a named event is logged, counted and heard with its fields; a log-only event is only logged", async () => {
    const heard: Observation[] = [];
    unsubscribe = onObserve((observation) => heard.push(observation));
    const before = await observability().registry.getSingleMetricAsString("rate_limited_total");
    observe("rate_limited", { rule: "session_per_address", alarm: false });
    observe("webhook_cleanup", { deleted: 3, alarm: false });
    expect(heard).toEqual([{ event: "rate_limited", fields: { rule: "session_per_address", alarm: false } }]);
    const after = await observability().registry.getSingleMetricAsString("rate_limited_total");
    expect(after).not.toEqual(before);
    expect(after).toMatch(/rate_limited_total\{rule="session_per_address"\} \d+/);
  });

  it("narrowing on the event types its fields", () => {
    const rules: string[] = [];
    unsubscribe = onObserve((observation) => {
      // `fields.rule` is a string here only because the event names it (a type error otherwise).
      if (observation.event === "rate_limited") rules.push(observation.fields.rule.toUpperCase());
    });
    observe("rate_limited", { rule: "return_per_session", alarm: false });
    expect(rules).toEqual(["RETURN_PER_SESSION"]);
  });
});
