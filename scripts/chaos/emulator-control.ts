import { sleep } from "@/lib/sleep";

/** The emulator's `/_emulator/*` controls, as the soak uses them. */
export type Stats = Record<string, number>;
export type Snapshot = Record<string, unknown> & { stats: Stats };

export class EmulatorControl {
  constructor(readonly url: string) {}

  /** POST /_emulator/faults: provider faults (merged). */
  faults(patch: Record<string, unknown>): Promise<Snapshot> {
    return this.post("/_emulator/faults", patch);
  }

  snapshot(): Promise<Snapshot> {
    return this.get("/_emulator/faults");
  }

  async stat(name: string): Promise<number> {
    return (await this.snapshot()).stats[name] ?? 0;
  }

  /** POST /_emulator/webhooks: delivery settings and webhook faults (merged). */
  webhooks(patch: Record<string, unknown>): Promise<Snapshot> {
    return this.post("/_emulator/webhooks", patch);
  }

  async webhookStat(name: string): Promise<number> {
    return (await this.get("/_emulator/webhooks")).stats[name] ?? 0;
  }

  private async get(path: string): Promise<Snapshot> {
    return (await (await fetch(`${this.url}${path}`)).json()) as Snapshot;
  }

  private async post(path: string, patch: Record<string, unknown>): Promise<Snapshot> {
    const response = await fetch(`${this.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(patch),
    });
    const body = (await response.json()) as Snapshot;
    if (!response.ok)
      throw new Error(`POST ${path} ${JSON.stringify(patch)} answered ${response.status}: ${JSON.stringify(body)}`);
    return body;
  }
}

/** Polls `check` every 100 ms until it is true or `ms` passed; returns whether it became true. */
export async function within(ms: number, check: () => Promise<boolean> | boolean): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}
