/** The emulator's `/_emulator/*` controls, as the soak uses them. */
export type Stats = Record<string, number>;
export type Snapshot = Record<string, unknown> & { stats: Stats };

export class EmulatorControl {
  constructor(readonly url: string) {}

  async faults(patch: Record<string, unknown>): Promise<Snapshot> {
    const response = await fetch(`${this.url}/_emulator/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(patch),
    });
    const body = (await response.json()) as Snapshot;
    if (!response.ok)
      throw new Error(
        `POST /_emulator/faults ${JSON.stringify(patch)} answered ${response.status}: ${JSON.stringify(body)}`,
      );
    return body;
  }

  async snapshot(): Promise<Snapshot> {
    return (await (await fetch(`${this.url}/_emulator/faults`)).json()) as Snapshot;
  }

  async stat(name: string): Promise<number> {
    return (await this.snapshot()).stats[name] ?? 0;
  }

  /** POST /_emulator/webhooks: delivery settings and webhook faults (merged). */
  async webhooks(patch: Record<string, unknown>): Promise<Snapshot> {
    const response = await fetch(`${this.url}/_emulator/webhooks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(patch),
    });
    const body = (await response.json()) as Snapshot;
    if (!response.ok)
      throw new Error(
        `POST /_emulator/webhooks ${JSON.stringify(patch)} answered ${response.status}: ${JSON.stringify(body)}`,
      );
    return body;
  }

  async webhookStat(name: string): Promise<number> {
    const view = (await (await fetch(`${this.url}/_emulator/webhooks`)).json()) as Snapshot;
    return view.stats[name] ?? 0;
  }
}

/** Polls `check` every 100 ms until it is true or `ms` passed; returns whether it became true. */
export async function within(ms: number, check: () => Promise<boolean> | boolean): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}
