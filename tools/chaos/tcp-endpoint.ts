import net from "node:net";

/**
 * A TCP forwarder standing for what sits between clients and a database
 * server: HAProxy in front of Patroni, a cloud's failover endpoint. It can be
 * pointed at another server (`switchTo`), cut every connection it carries
 * (as HAProxy's `on-marked-down shutdown-sessions` does), and hold its
 * traffic (`pause`): on the replication link, that is a standby falling
 * behind.
 */
export interface TcpEndpoint {
  port: number;
  target(): number;
  switchTo(port: number): void;
  /** Destroys every open connection; new ones go to the current target. */
  cutAll(): void;
  /** Stops forwarding bytes (both ways) until `resume`; connections stay open. */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startTcpEndpoint(options: { port?: number; target: number }): Promise<TcpEndpoint> {
  let target = options.target;
  let paused = false;
  const held: Array<() => void> = [];
  const pairs = new Set<[net.Socket, net.Socket]>();
  // Bytes read while paused are held in order and written on resume.
  const forward = (from: net.Socket, to: net.Socket) =>
    from.on("data", (chunk) => {
      if (paused) held.push(() => to.write(chunk));
      else to.write(chunk);
    });
  const server = net.createServer((client) => {
    const upstream = net.connect(target, "127.0.0.1");
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    forward(client, upstream);
    forward(upstream, client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  const endpoint: TcpEndpoint = {
    port,
    target: () => target,
    switchTo(next) {
      target = next;
    },
    cutAll() {
      held.length = 0;
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      pairs.clear();
    },
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      for (const write of held.splice(0)) write();
    },
    async close() {
      endpoint.cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return endpoint;
}
