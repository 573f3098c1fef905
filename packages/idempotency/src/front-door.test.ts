import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectConsole } from "@/tests/helpers/console";
import { IdempotencyEngine } from "./engine";
import { frontDoorAnswers, frontDoorRoute, installFrontDoor } from "./front-door";
import { withIdempotency } from "./next";
import { testDatabase } from "./test-database";

/**
 * The front door before a stand-in framework on a real Node server: the
 * framework's listener turns each Node request into a web Request for the
 * same handler, and counts what it served. A route held mid-effect makes
 * its key in flight.
 */
let test: Awaited<ReturnType<typeof testDatabase>>;
let engine: IdempotencyEngine;
let server: Server;
let base: string;
const served: string[] = [];
const PATH = "/front-door-test/payments";
const ENDPOINT = `POST ${PATH}`;

let claimed = 0;
let handled = 0;
const forwarded: Array<Array<string | null>> = [];
let release = () => {};
let held = new Promise<void>((resolve) => (release = resolve));
const POST = withIdempotency(
  {
    engine: () => engine,
    endpoint: ENDPOINT,
    subject: (request) => request.headers.get("x-user"),
    parse: (json) => ({ ok: true, value: json as { amount: number } }),
  },
  async (context) => {
    claimed++;
    await held;
    return { status: 201, body: { paid: context.body.amount } };
  },
);

async function framework(req: IncomingMessage): Promise<Response> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  served.push(`${req.method} ${req.url}`);
  const headers = new Headers(req.headers as Record<string, string>);
  const init = req.method === "POST" ? { body: Buffer.concat(chunks) } : {};
  return req.url?.startsWith(PATH)
    ? POST(new Request(`http://test${req.url}`, { method: req.method, headers, ...init }))
    : new Response("framework", { status: 404 });
}

beforeAll(async () => {
  test = await testDatabase();
  engine = new IdempotencyEngine(test.db, { inProgressTtlMs: 60_000, retentionHours: 24, attemptDeadlineMs: 600_000 });
  installFrontDoor();
  frontDoorRoute({
    path: PATH,
    endpoint: ENDPOINT,
    handler: async (request) => {
      handled++;
      forwarded.push(["host", "port", "proto", "for"].map((name) => request.headers.get(`x-forwarded-${name}`)));
      if (request.headers.get("x-throw")) throw new Error("the handler failed");
      const response = await POST(request);
      response.headers.append("set-cookie", "a=1");
      response.headers.append("set-cookie", "b=2");
      return response;
    },
    maxBodyBytes: 1024,
    responseHeaders: () => ({ "x-config": "yes", "x-frame-options": "DENY" }),
  });
  server = createServer((req, res) => {
    void framework(req).then(async (response) => {
      res.writeHead(response.status, { "x-framework": "yes", ...Object.fromEntries(response.headers) });
      res.end(Buffer.from(await response.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  release();
  await new Promise((resolve) => server.close(resolve));
  await test.close();
});

const send = (key: string | null, body: string, options: { path?: string; headers?: Record<string, string> } = {}) =>
  fetch(`${base}${options.path ?? PATH}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-user": "alice",
      ...(key !== null && { "idempotency-key": key }),
      ...options.headers,
    },
    body,
  });

describe("the front door", () => {
  it("hands a running attempt's duplicates to the handler before the framework, and nothing else", async () => {
    const key = randomUUID();
    const first = send(key, JSON.stringify({ amount: 5 }));
    await expect.poll(() => claimed).toBe(1);
    const answered = frontDoorAnswers();

    // The same body, and another: the claim's own answers, with the configured headers and every cookie.
    const duplicate = await send(key.toUpperCase(), JSON.stringify({ amount: 5 }));
    expect(duplicate.status).toBe(409);
    expect(duplicate.headers.get("retry-after")).toBe("1");
    expect(duplicate.headers.get("x-config")).toBe("yes");
    expect(duplicate.headers.get("x-framework")).toBeNull();
    expect(duplicate.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await duplicate.json()).toMatchObject({ error: "in_progress" });
    const changed = await send(key, JSON.stringify({ amount: 6 }), { headers: { "x-forwarded-proto": "https" } });
    expect(changed.status).toBe(422);
    // The x-forwarded-* Next.js adds when a client sent none; a client's own are kept.
    const port = String((server.address() as AddressInfo).port);
    expect(forwarded).toEqual([
      [`127.0.0.1:${port}`, port, "http", "127.0.0.1"],
      [`127.0.0.1:${port}`, port, "https", "127.0.0.1"],
    ]);
    // A handler that throws: 500, nothing said, logged, as a framework answers it.
    expectConsole("error", "the handler failed");
    const thrown = await send(key, JSON.stringify({ amount: 5 }), { headers: { "x-throw": "1" } });
    expect(thrown.status).toBe(500);
    expect(await thrown.text()).toBe("");
    expect(frontDoorAnswers() - answered).toBe(3);
    expect(served).toEqual([`POST ${PATH}`]);

    // A client that goes away mid-body: taken, never handed to the handler, nothing logged.
    const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      `POST ${PATH} HTTP/1.1\r\nHost: test\r\nx-user: alice\r\nidempotency-key: ${key}\r\n` +
        `content-type: application/json\r\ncontent-length: 100\r\n\r\n{"amou`,
    );
    await expect.poll(() => frontDoorAnswers() - answered).toBe(4);
    socket.destroy();
    const handledBefore = handled;
    expect((await send(key, JSON.stringify({ amount: 5 }))).status).toBe(409);
    expect(handled - handledBefore).toBe(1);

    // What the door leaves to the framework, judged before the body is read.
    const framed = async (answer: Promise<Response>) => (await answer).headers.get("x-framework");
    const otherKey = randomUUID();
    expect(await framed(send(key, JSON.stringify({ amount: 5 }), { path: `${PATH}?q=1` }))).toBe("yes");
    expect(await framed(send(key, "x".repeat(2000)))).toBe("yes");
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify({ amount: 5 })));
        controller.close();
      },
    });
    expect(
      await framed(
        fetch(`${base}${PATH}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-user": "alice", "idempotency-key": key },
          body: chunked,
          duplex: "half",
        } as RequestInit),
      ),
    ).toBe("yes");
    expect(await framed(send("not-a-uuid", JSON.stringify({ amount: 5 })))).toBe("yes");
    expect(await framed(send(null, JSON.stringify({ amount: 5 })))).toBe("yes");
    expect(await framed(fetch(`${base}${PATH}`, { headers: { "idempotency-key": key } }))).toBe("yes");
    expect(frontDoorAnswers() - answered).toBe(5);
    expect(served).toHaveLength(7);

    // Once the attempt ends, its key is no longer in flight: the replay is the framework's.
    release();
    expect((await first).status).toBe(201);
    const replay = await send(key, JSON.stringify({ amount: 5 }));
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.headers.get("x-framework")).toBe("yes");
    // A fresh key was never in flight.
    expect((await send(otherKey, JSON.stringify({ amount: 7 }))).headers.get("x-framework")).toBe("yes");
    expect(frontDoorAnswers() - answered).toBe(5);
    held = Promise.resolve();
  });
});
