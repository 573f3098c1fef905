import type { Journal } from "./journal";

/**
 * A shopper's browser as far as HTTP goes: one session cookie, every request
 * through the proxy, and every answer that concerns a checkout attempt
 * written to the journal exactly as it arrived (or as the error it was).
 */
export class Browser {
  cookie = "";
  customerId = "";

  constructor(
    readonly appUrl: string,
    private readonly journal: Journal,
  ) {}

  /** POST /api/session, retried while instances or the database are down (the shopper reloads the page). */
  async arrive(): Promise<void> {
    for (let tries = 0; ; tries++) {
      try {
        const response = await fetch(`${this.appUrl}/api/session`, {
          method: "POST",
          signal: AbortSignal.timeout(10_000),
        });
        if (response.status === 201 || response.status === 200) {
          this.cookie = response.headers.getSetCookie()[0]?.split(";")[0] ?? "";
          this.customerId = ((await response.json()) as { customerId: string }).customerId;
          return;
        }
      } catch {
        // an instance restarting: try again
      }
      if (tries > 120) throw new Error("could not start a session for two minutes");
      await sleep(500);
    }
  }

  /**
   * A `fetch` for one attempt's requests: relative URLs resolved against the
   * proxy, the cookie added, `signal` honoured, the answer journaled.
   */
  fetchFor(attemptId: string, extraSignal?: () => AbortSignal | undefined): typeof fetch {
    return async (input, init = {}) => {
      const url = new URL(String(input), this.appUrl);
      const method = init.method ?? "GET";
      const headers = new Headers(init.headers);
      if (this.cookie) headers.set("cookie", this.cookie);
      const signals = [init.signal, extraSignal?.()].filter((s): s is AbortSignal => !!s);
      const path = url.pathname + url.search;
      try {
        const response = await fetch(url, {
          ...init,
          headers,
          redirect: "manual",
          signal: signals.length ? AbortSignal.any(signals) : null,
        });
        const text = await response.text();
        this.journal.record(attemptId, {
          method,
          path,
          status: response.status,
          body: parse(text),
          ...(response.headers.get("idempotent-replayed") === "true" ? { replayed: true } : {}),
        });
        return new Response(text === "" ? null : text, { status: response.status, headers: response.headers });
      } catch (err) {
        this.journal.record(attemptId, {
          method,
          path,
          status: null,
          body: null,
          error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
        });
        throw err;
      }
    };
  }
}

function parse(text: string): unknown {
  try {
    return text === "" ? null : JSON.parse(text);
  } catch {
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
