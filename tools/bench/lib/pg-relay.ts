import net from "node:net";

/**
 * A TCP relay in front of PostgreSQL that counts the app's round trips on the
 * wire: every message the client sends passes unchanged, and each simple
 * Query ('Q') and each Sync ('S', the end of one extended-protocol batch:
 * Parse/Bind/Execute/Sync) is one request the client then waits on. BEGIN and
 * COMMIT are queries of their own, so a transaction counts every statement
 * it sends. The app's DATABASE_URL points here; nothing else changes.
 */
export interface PgRelay {
  url: string;
  /** Round trips sent through the relay so far. */
  roundTrips(): number;
  close(): Promise<void>;
}

export async function startPgRelay(targetUrl: string): Promise<PgRelay> {
  const target = new URL(targetUrl);
  const targetPort = Number(target.port || 5432);
  const targetHost = target.hostname;
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => undefined);
    }
    const counter = messageCounter((type) => {
      if (type === 0x51 || type === 0x53) count++; // 'Q', 'S'
    });
    client.on("data", (chunk: Buffer) => {
      counter(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  const url = new URL(targetUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.toString(),
    roundTrips: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Feeds a client's byte stream, chunk by chunk, and calls `onMessage` with
 * each message's type byte. The first messages (SSLRequest, GSSENCRequest,
 * the startup packet) carry no type byte: an int32 length, then an int32
 * code; the startup packet ends that phase.
 */
function messageCounter(onMessage: (type: number) => void): (chunk: Buffer) => void {
  let startup = true;
  let header = Buffer.alloc(0);
  let skip = 0;
  return (chunk) => {
    let at = 0;
    while (at < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - at);
        skip -= n;
        at += n;
        continue;
      }
      const need = startup ? 8 : 5;
      const take = Math.min(need - header.length, chunk.length - at);
      header = Buffer.concat([header, chunk.subarray(at, at + take)]);
      at += take;
      if (header.length < need) return;
      if (startup) {
        const length = header.readInt32BE(0);
        const code = header.readInt32BE(4);
        // 80877103 SSLRequest, 80877104 GSSENCRequest: the server answers one byte, then the real startup follows.
        if (code !== 80877103 && code !== 80877104) startup = false;
        skip = length - 8;
      } else {
        onMessage(header[0]!);
        skip = header.readInt32BE(1) - 4;
      }
      header = Buffer.alloc(0);
    }
  };
}
