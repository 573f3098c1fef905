import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The load balancer in front of the instances: round-robin, and like nginx's
 * `proxy_next_upstream error` it tries the next instance when one refuses the
 * connection (a killed instance never saw the request, so that is safe). A
 * request that dies inside an instance is answered 502, as a real balancer
 * would, and the shopper's client retries it with the same key.
 *
 * Its own fault: `cutResponses(n)` destroys the shopper's connection after the
 * next n checkout answers came back from the app — the response lost on a
 * mobile network after the server charged the card.
 */
export interface Proxy {
  url: string;
  /** Arms (or, with 0, disarms) the next n cuts. */
  cutResponses(n: number): void;
  stats: { requests: number; retriedElsewhere: number; badGateway: number; cut: number };
  close(): Promise<void>;
}

export async function startProxy(options: {
  port: number;
  backends: () => number[];
  /** Rewrites a request path (the checker's broken-build test sends checkouts to the naive endpoint). */
  rewrite?: (method: string, path: string) => string;
}): Promise<Proxy> {
  let next = 0;
  let armedCuts = 0;
  const stats = { requests: 0, retriedElsewhere: 0, badGateway: 0, cut: 0 };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  const server = http.createServer(async (req, res) => {
    stats.requests += 1;
    res.on("error", () => {});
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of req) chunks.push(chunk as Buffer);
    } catch {
      return; // the shopper went away mid-body
    }
    const body = Buffer.concat(chunks);
    const path = options.rewrite ? options.rewrite(req.method ?? "GET", req.url ?? "/") : (req.url ?? "/");
    const isCheckout = req.method === "POST" && (req.url ?? "").startsWith("/api/checkout");
    const backends = options.backends();
    for (let tried = 0; tried < backends.length; tried++) {
      const port = backends[next++ % backends.length]!;
      const outcome = await forward(port, req, path, body, res, agent, () => {
        if (!isCheckout || armedCuts <= 0) return false;
        armedCuts -= 1;
        stats.cut += 1;
        return true;
      });
      if (outcome !== "refused") return;
      stats.retriedElsewhere += 1;
    }
    stats.badGateway += 1;
    sendJson(res, 502, { error: "bad_gateway", message: "No instance accepted the connection." });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    cutResponses: (n) => (armedCuts = n),
    stats,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      agent.destroy();
      await closed;
    },
  };
}

type Forwarded = "answered" | "refused" | "failed";

function forward(
  port: number,
  req: http.IncomingMessage,
  path: string,
  body: Buffer,
  res: http.ServerResponse,
  agent: http.Agent,
  shouldCut: () => boolean,
): Promise<Forwarded> {
  return new Promise((resolve) => {
    const headers = {
      ...req.headers,
      host: req.headers.host ?? `127.0.0.1:${port}`,
      "content-length": String(body.length),
    };
    const upstream = http.request({ host: "127.0.0.1", port, method: req.method, path, headers, agent }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on("data", (c: Buffer) => chunks.push(c));
      answer.on("error", () => {
        sendJson(res, 502, { error: "bad_gateway", message: "The instance failed mid-answer." });
        resolve("failed");
      });
      answer.on("end", () => {
        if (shouldCut()) {
          req.socket.destroy(); // the app answered; the shopper never hears it
        } else {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(chunks));
        }
        resolve("answered");
      });
    });
    upstream.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ECONNREFUSED") return resolve("refused");
      sendJson(res, 502, { error: "bad_gateway", message: `The instance failed: ${err.code ?? err.message}` });
      resolve("failed");
    });
    upstream.end(body);
  });
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const json = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) });
  res.end(json);
}
