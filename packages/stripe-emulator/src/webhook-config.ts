import { isCount, isObject } from "./fault-patch";

/** The one webhook endpoint, as `POST /_emulator/webhooks` sets it. */
export interface WebhookConfig {
  url: string | null;
  secret: string;
  /** First retry waits this long; each later one twice as long as the one before. */
  retryBaseMs: number;
  /** Attempts per delivery, the first included. */
  maxAttempts: number;
  /** An attempt that takes longer has failed. */
  timeoutMs: number;
}

export interface WebhookFaults {
  /** Each event is delivered this many extra times. */
  duplicate: number;
  /** The next `batch` deliveries are held and then sent in reverse order. */
  reorder: { batch: number } | null;
  /** Every delivery attempt waits this long first. */
  delayMs: number;
  /** The next n attempts fail without reaching the endpoint, as if it had timed out. */
  dropFirst: number;
  /** The next n attempts are signed with a wrong secret. */
  badSignature: number;
}

/** A `POST /_emulator/webhooks` body: settings and webhook faults, each merged into the current ones. */
export type WebhookPatch = Partial<WebhookConfig> & { faults?: Partial<WebhookFaults> };

export const DEFAULT_WEBHOOK_SECRET = "whsec_emulator";

export function defaultWebhookConfig(url: string | null = null, secret = DEFAULT_WEBHOOK_SECRET): WebhookConfig {
  return { url, secret, retryBaseMs: 1000, maxAttempts: 5, timeoutMs: 10_000 };
}

export function defaultWebhookFaults(): WebhookFaults {
  return { duplicate: 0, reorder: null, delayMs: 0, dropFirst: 0, badSignature: 0 };
}

const MAX = 600_000;

/** Validates a control body; a string is the error and nothing changes. */
export function parseWebhookPatch(
  input: unknown,
): { config: Partial<WebhookConfig>; faults: Partial<WebhookFaults> } | string {
  if (!isObject(input)) return "Expected a JSON object.";
  const config: Partial<WebhookConfig> = {};
  const faults: Partial<WebhookFaults> = {};
  for (const [name, value] of Object.entries(input)) {
    if (name === "url") {
      if (value !== null && (typeof value !== "string" || !/^https?:\/\//.test(value) || !URL.canParse(value)))
        return "url must be null or an http(s) URL.";
      config.url = value;
    } else if (name === "secret") {
      if (typeof value !== "string" || value.length === 0) return "secret must be a non-empty string.";
      config.secret = value;
    } else if (name === "retryBaseMs" || name === "timeoutMs") {
      if (!isCount(value, MAX) || value < 1) return `${name} must be an integer between 1 and ${MAX}.`;
      config[name] = value;
    } else if (name === "maxAttempts") {
      if (!isCount(value, 100) || value < 1) return "maxAttempts must be an integer between 1 and 100.";
      config.maxAttempts = value;
    } else if (name === "faults") {
      const error = parseFaults(value, faults);
      if (error) return error;
    } else {
      return `Unknown setting: ${name}. Known: url, secret, retryBaseMs, maxAttempts, timeoutMs, faults.`;
    }
  }
  return { config, faults };
}

function parseFaults(input: unknown, faults: Partial<WebhookFaults>): string | null {
  if (!isObject(input)) return "faults must be an object.";
  for (const [name, value] of Object.entries(input)) {
    if (name === "duplicate" || name === "dropFirst" || name === "badSignature" || name === "delayMs") {
      if (!isCount(value, MAX)) return `faults.${name} must be an integer between 0 and ${MAX}.`;
      faults[name] = value;
    } else if (name === "reorder") {
      if (value === null) faults.reorder = null;
      else if (
        isObject(value) &&
        Object.keys(value).join() === "batch" &&
        isCount(value.batch, 1000) &&
        value.batch >= 2
      )
        faults.reorder = { batch: value.batch };
      else return 'faults.reorder must be null or { "batch": n } with n between 2 and 1000.';
    } else {
      return `Unknown webhook fault: ${name}. Known: duplicate, reorder, delayMs, dropFirst, badSignature.`;
    }
  }
  return null;
}
