import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestApp } from "./helpers/harness";
import { Shopper } from "./helpers/shopper";

/**
 * Client addresses as the deployment defines them (docs/contract.md §10):
 * without TRUSTED_PROXY_HOPS or CLIENT_IP_HEADER the socket's peer, so a
 * client reached directly cannot pick a fresh count per request by writing
 * X-Forwarded-For (or the header the server writes the peer into). A
 * database of its own: the session limit counts 127.0.0.1 here alone.
 */
const h = useTestApp({ RATE_LIMIT_SCALE: "1", RATE_LIMIT_SESSIONS_PER_ADDRESS: "3" }, { ownDatabase: "address" });

describe("a server with no trusted proxy", () => {
  it("counts a client rotating X-Forwarded-For as one client: the fourth session is 429", async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) {
      const answer = await new Shopper(h.url).startSession({
        "x-forwarded-for": `203.0.113.${i + 1}`,
        "x-checkout-socket-peer": `198.51.100.${i + 1}`,
        "cf-connecting-ip": `192.0.2.${i + 1}`,
      });
      statuses.push(answer.status);
    }
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
  });
});

/**
 * One proxy in front (TRUSTED_PROXY_HOPS=1): a real HTTP proxy in this test
 * appends the peer it saw to X-Forwarded-For, as nginx's
 * `$proxy_add_x_forwarded_for` does. Two clients reach it from two loopback
 * addresses, so each has a count of its own.
 */
const behind = useTestApp(
  { RATE_LIMIT_SCALE: "1", RATE_LIMIT_SESSIONS_PER_ADDRESS: "2", TRUSTED_PROXY_HOPS: "1" },
  { ownDatabase: "addressproxy" },
);
let proxy: http.Server;
let proxyPort = 0;
const seen: string[] = [];

beforeAll(async () => {
  proxy = http.createServer((req, res) => {
    const target = new URL(behind.url);
    const forwarded = [req.headers["x-forwarded-for"], req.socket.remoteAddress].filter(Boolean).join(", ");
    seen.push(req.socket.remoteAddress ?? "");
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, "x-forwarded-for": forwarded },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyPort = (proxy.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve())));

/** POST /api/session through the proxy, from `localAddress`, with whatever X-Forwarded-For the client adds. */
function sessionVia(localAddress: string, forwardedFor?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: proxyPort,
        path: "/api/session",
        method: "POST",
        localAddress,
        headers: forwardedFor ? { "x-forwarded-for": forwardedFor } : {},
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("a server behind one trusted proxy", () => {
  it("gives each client its own count, whatever X-Forwarded-For the client writes itself", async () => {
    const first = [];
    for (let i = 0; i < 3; i++) first.push(await sessionVia("127.0.0.2", `10.9.${i}.${randomUUID().length}`));
    expect(first).toEqual([201, 201, 429]);
    expect(await sessionVia("127.0.0.3")).toBe(201);
    // The proxy really saw two clients.
    expect(new Set(seen)).toEqual(new Set(["127.0.0.2", "127.0.0.3"]));
  });
});
