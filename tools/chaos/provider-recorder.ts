import http from "node:http";
import type { AddressInfo } from "node:net";
import type { ProviderWrite } from "./cross-shop";

/**
 * Between the second shop and the provider: every request passes through
 * unchanged (a connection the provider cuts is cut here too), and every
 * write is written down — method, path, and the PaymentIntent it names (in
 * the path, or a refund's `payment_intent`) — before it is forwarded. Both
 * shops use one account and one key, so the provider cannot tell their
 * requests apart; this list says which refunds and cancellations the second
 * shop asked for.
 */
export interface ProviderRecorder {
  url: string;
  writes: ProviderWrite[];
  close(): Promise<void>;
}

export async function startProviderRecorder(upstreamUrl: string): Promise<ProviderRecorder> {
  const upstream = new URL(upstreamUrl);
  const writes: ProviderWrite[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const server = http.createServer(async (req, res) => {
    res.on("error", () => {});
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of req) chunks.push(chunk as Buffer);
    } catch {
      return; // the caller went away mid-body
    }
    const body = Buffer.concat(chunks);
    const method = req.method ?? "GET";
    const path = req.url ?? "/";
    if (method !== "GET") writes.push(describeWrite(method, path, body.toString("utf8")));
    const forwarded = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method,
        path,
        headers: { ...req.headers, host: upstream.host, "content-length": String(body.length) },
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on("error", () => req.socket.destroy());
      },
    );
    // The provider cut the connection (or never took it): so does the recorder, as the provider would have.
    forwarded.on("error", () => req.socket.destroy());
    // The caller gave up (its timeout): so does the request upstream, as the caller's own socket would.
    res.on("close", () => {
      if (!res.writableFinished) forwarded.destroy();
    });
    forwarded.end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    writes,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      agent.destroy();
      await closed;
    },
  };
}

/** `POST /v1/payment_intents/pi_…/cancel` names its intent in the path; `POST /v1/refunds` in its form body. */
export function describeWrite(method: string, url: string, body: string): ProviderWrite {
  const path = url.split("?")[0]!;
  const inPath = /^\/v1\/payment_intents\/([^/]+)(?:\/([a-z_]+))?$/.exec(path);
  if (inPath) return { method, path, paymentIntent: inPath[1]!, action: inPath[2] ?? "update" };
  if (path === "/v1/refunds") {
    const form = new URLSearchParams(body);
    return { method, path, paymentIntent: form.get("payment_intent"), action: "refund" };
  }
  return { method, path, paymentIntent: null, action: path === "/v1/payment_intents" ? "create" : "other" };
}
