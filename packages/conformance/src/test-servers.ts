import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import type { Target } from "./target";

/**
 * Small endpoints on plain node:http for the kit's own tests: one that keeps
 * the contract, and ones with the bugs the kit exists to find. Their state (the
 * stored answers and the provider's effects) outlives a restart, as a
 * database and a payment provider do.
 */
export type Flaw =
  /** Looks the key up, then acts, then stores: no claim before the effect. */
  | "check-then-act"
  /** Stores answers by key alone, not by subject and key. */
  | "leaks-across-subjects";

interface Stored {
  state: "in_progress" | "done";
  fingerprint: string;
  /** The process (epoch) that claimed it; a dead one's claim may be retaken. */
  epoch: number;
  status?: number;
  body?: string;
}

/** A provider whose effects are idempotent by their own key, with a gate that holds them. */
class Provider {
  effects = new Map<string, number>();
  gateClosed = false;
  private waiting: Array<() => void> = [];
  private onHeld: Array<() => void> = [];

  async effect(key: string): Promise<number> {
    if (this.gateClosed) {
      await new Promise<void>((resolve) => {
        this.waiting.push(resolve);
        this.onHeld.splice(0).forEach((notify) => notify());
      });
    } else {
      // A provider call takes a while; copies arriving meanwhile find no answer stored yet.
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const known = this.effects.get(key);
    if (known !== undefined) return known;
    const id = this.effects.size + 1;
    this.effects.set(key, id);
    return id;
  }

  held(): Promise<void> {
    if (this.waiting.length > 0) return Promise.resolve();
    return new Promise((resolve) => this.onHeld.push(resolve));
  }

  open(): void {
    this.gateClosed = false;
    this.waiting.splice(0).forEach((go) => go());
  }
}

export interface TestEndpoint {
  target: Target;
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export async function startTestEndpoint(flaw?: Flaw): Promise<TestEndpoint> {
  const store = new Map<string, Stored>();
  const provider = new Provider();
  let epoch = 0;
  let server: Server | null = null;

  const listen = async (port = 0): Promise<number> => {
    const mine = ++epoch;
    server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        response.writeHead(status, { "content-type": "application/json", ...headers });
        response.end(typeof body === "string" ? body : JSON.stringify(body));
      };
      const key = request.headers["idempotency-key"];
      if (typeof key !== "string" || !UUID.test(key)) return answer(400, { error: "invalid_key" });
      const subject = request.headers.cookie ?? "";
      const fingerprint = Buffer.concat(chunks).toString("utf8");
      const scope = flaw === "leaks-across-subjects" ? key : `${subject}|${key}`;

      const found = store.get(scope);
      if (found && found.fingerprint !== fingerprint) return answer(422, { error: "key_reuse" });
      if (found?.state === "done") return answer(found.status!, found.body!);
      if (found && found.epoch === mine) return answer(409, { error: "in_progress" }, { "retry-after": "1" });
      if (flaw !== "check-then-act") store.set(scope, { state: "in_progress", fingerprint, epoch: mine });

      const order = await provider.effect(flaw === "check-then-act" ? randomUUID() : scope);
      if (epoch !== mine) return; // this process died meanwhile: it writes nothing
      const body = JSON.stringify({ order, status: "paid" });
      store.set(scope, { state: "done", fingerprint, epoch: mine, status: 201, body });
      answer(201, body);
    });
    await new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", resolve));
    return (server!.address() as AddressInfo).port;
  };
  const stop = async () => {
    const dying = server!;
    epoch += 1; // what the dead process still runs writes nothing
    dying.closeAllConnections();
    await new Promise((resolve) => dying.close(resolve));
  };

  const port = await listen();
  const body = (quantity = 1, method = "visa") => ({ items: [{ sku: "tee", quantity }], method });
  const target: Target = {
    name: flaw ?? "sound",
    url: `http://127.0.0.1:${port}/pay`,
    subject: async () => ({ cookie: `sid=${randomUUID()}` }),
    bodies: { base: () => body(), nestedChange: () => body(2), topLevelChange: () => body(1, "mastercard") },
    effects: async () => provider.effects.size,
    hold: {
      close: async () => void (provider.gateClosed = true),
      held: () => provider.held(),
      open: async () => provider.open(),
    },
    restart: { stop, start: async () => void (await listen(port)) },
    settleMs: 10_000,
  };
  return { target, close: stop };
}
