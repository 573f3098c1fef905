import { randomUUID } from "node:crypto";
import { CART, checkoutHeaders, checkoutOnce, startSession } from "../lib/app-client";
import { alternate, unexpected } from "../lib/http-load";
import { goal, type Scenario } from "../lib/scenario";

/**
 * Replays: a checkout that completed is sent again and again with its key;
 * each answer is the stored 201, replayed from one read, compared with
 * `GET /api/health` at the same concurrency.
 */
export const replays: Scenario = {
  name: "replays",
  title: "replays",
  async run(ctx) {
    const { appUrl, sizes } = ctx;
    const cookie = await startSession(appUrl);
    const key = randomUUID();
    const first = await checkoutOnce(appUrl, cookie, key);
    if (first.status !== 201) throw new Error(`the first checkout answered ${first.status}: ${await first.text()}`);
    const second = await checkoutOnce(appUrl, cookie, key);
    if (second.headers.get("idempotent-replayed") !== "true") throw new Error("a repeated key was not replayed");

    const { cpu } = ctx;
    const connections = sizes.connections;
    const [replayed, health] = await alternate(
      {
        url: `${appUrl}/api/checkout`,
        method: "POST",
        headers: checkoutHeaders(cookie, key),
        body: CART,
        connections,
        cpu,
      },
      { url: `${appUrl}/api/health`, connections, cpu },
      sizes,
    );
    const notes: string[] = [];
    if (unexpected(replayed, 201)) notes.push(`${unexpected(replayed, 201)} replays were not 201`);
    if (unexpected(health, 200)) notes.push(`${unexpected(health, 200)} health answers were not 200`);
    return {
      measures: { "POST replay of a completed key": replayed, "GET /api/health": health },
      goals: [goal("replay p99 ÷ health p99", replayed.p99Ms / health.p99Ms, "<=", 2)],
      notes,
    };
  },
};
