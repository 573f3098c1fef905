import { QueryClient, queryOptions } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { readFromNow } from "./queries";

/**
 * A stand-in event log whose answers the test lets through one by one: each
 * request answers with what the log held when it was sent.
 */
function slowLog() {
  const log = { recorded: 1, answers: [] as Array<() => void> };
  const request = () => {
    const held = log.recorded;
    return new Promise<number>((resolve) => log.answers.push(() => resolve(held)));
  };
  const options = queryOptions({ queryKey: ["lab", "events", "run"], queryFn: request, staleTime: 0 });
  return { log, options };
}

async function sent(log: { answers: unknown[] }, n: number): Promise<void> {
  await expect.poll(() => log.answers.length).toBe(n);
}

describe("readFromNow", () => {
  it("fetchQuery alone hands back a poll sent before the run's last answer was recorded", async () => {
    const client = new QueryClient();
    const { log, options } = slowLog();
    void client.fetchQuery(options); // the page's poll, in flight
    await sent(log, 1);
    log.recorded = 2; // the run's last answer, recorded while the poll is on its way
    const final = client.fetchQuery(options);
    log.answers[0]!();
    expect(await final).toBe(1);
    expect(log.answers).toHaveLength(1);
  });

  it("sends a read of its own and shows it, whenever the poll in flight answers", async () => {
    const client = new QueryClient();
    const { log, options } = slowLog();
    void client.fetchQuery(options).catch(() => undefined); // the poll, cancelled below
    await sent(log, 1);
    log.recorded = 2;
    const final = readFromNow(client, options);
    await sent(log, 2);
    log.answers[1]!();
    expect(await final).toBe(2);
    log.answers[0]!(); // the old poll's answer arrives last, and changes nothing
    await Promise.resolve();
    expect(client.getQueryData(options.queryKey)).toBe(2);
  });
});
