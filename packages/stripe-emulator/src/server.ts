import http from "node:http";
import type { AddressInfo } from "node:net";
import { Accounts } from "./accounts";
import { handleApi, send, type ApiRequest, type Reply } from "./api";
import { authenticate } from "./auth";
import {
  browserIntentRead,
  BROWSER_INTENT_PATH,
  isBrowserIntentRead,
  STRIPE_JS_FAILURE_HEADER,
} from "./browser-intents";
import { BANK_PAGE_PREFIX, handleBankPage } from "./bank-page";
import { handleAuthenticationPage } from "./authentication-page";
import { handleControl } from "./control";
import { StateFile } from "./persistence";
import { randomId } from "./ids";
import { handleStripeJs } from "./stripe-js";
import { unrecognizedUrl, stripeError } from "./responses";
import type { WebhookDefaults } from "./state";

export interface StripeEmulatorOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  log?: (line: string) => void;
  /** The webhook endpoint after start and after every reset (`POST /_emulator/webhooks` changes it until the next reset). */
  webhook?: WebhookDefaults;
  /**
   * A file that keeps the default account's records across restarts
   * (persistence.ts): read at start when it exists, written before every
   * answer to a request that may change them, and at close.
   */
  stateFile?: string;
}

export interface StripeEmulator {
  url: string;
  port: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

/** Methods that change nothing the state file keeps. */
const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The state file exists and is not one the emulator can read: it is never overwritten. */
export class StateFileError extends Error {
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(`${file} is not a state file of this emulator (${cause instanceof Error ? cause.message : String(cause)})`);
  }
}

/** What a page calls with the publishable key (a ConfirmationToken; an intent's read), from its own origin. */
const BROWSER_PATH = "/v1/confirmation_tokens";
const CORS = { "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": STRIPE_JS_FAILURE_HEADER };
const PREFLIGHT = {
  "Access-Control-Allow-Headers": "Authorization, Content-Type",
  "Access-Control-Max-Age": "300",
};

/** A Stripe-compatible HTTP server for tests and the demo; see docs/contract.md §5. */
export async function startStripeEmulator(options: StripeEmulatorOptions = {}): Promise<StripeEmulator> {
  const host = options.host ?? "127.0.0.1";
  const log = options.log ?? (() => {});
  const accounts = new Accounts(options.webhook);
  const kept = options.stateFile ? new StateFile(options.stateFile, () => accounts.forKey(null)) : null;
  try {
    kept?.load();
  } catch (error) {
    throw new StateFileError(kept!.file, error);
  }
  const shutdown = new AbortController();
  let publicUrl = "";

  const server = http.createServer((req, res) => {
    // The charge must not depend on the caller staying connected: nothing here
    // listens for `req` closing, and a reply to a gone caller is simply lost.
    res.on("error", () => {});
    const started = Date.now();
    const requestId = randomId("req_", 14);
    const url = new URL(req.url ?? "/", "http://emulator.invalid");
    const note: ApiRequest["note"] = {};
    respond(req, url, requestId, note)
      .catch((error: unknown): Reply => {
        const message = `Unexpected error in the Stripe emulator: ${error instanceof Error ? error.message : String(error)}`;
        return send(stripeError(500, { type: "api_error", message }));
      })
      .then(async (reply) => {
        // Recorded before it is answered, as at Stripe: an answer the caller read is never forgotten.
        if (kept && !READS.has(req.method ?? "GET"))
          await kept
            .save()
            .catch((error: unknown) => log(`could not keep the records in ${kept.file}: ${String(error)}`));
        return reply;
      })
      .then((reply) => {
        const delivered = writeReply(req, res, reply, requestId);
        const outcome = reply.kind === "drop" ? "dropped" : `${reply.status}${delivered ? "" : " (caller gone)"}`;
        log(
          `${req.method} ${url.pathname}${url.search} ${outcome} ${Date.now() - started}ms` +
            ` idempotency-key=${note.idempotencyKey ?? "-"} replayed=${note.replayed === true}`,
        );
      });
  });

  async function respond(
    req: http.IncomingMessage,
    url: URL,
    requestId: string,
    note: ApiRequest["note"],
  ): Promise<Reply> {
    const method = req.method ?? "GET";
    const body = await readBody(req);
    // The unread rest of the body would be parsed as the next request, so close the connection.
    if (body === null) return send(tooLarge(), { Connection: "close" });
    // Links the emulator hands out (the authentication page) use the address the caller reached it by.
    const origin = req.headers.host ? `http://${req.headers.host}` : publicUrl;
    if (url.pathname.startsWith("/_emulator/3ds/")) {
      // Reached by a browser, without a key: the account is the one holding the PaymentIntent.
      const account = accounts.holding(url.pathname.slice("/_emulator/3ds/".length));
      return handleAuthenticationPage(method, url, body, account, origin);
    }
    if (url.pathname.startsWith(BANK_PAGE_PREFIX)) {
      const account = accounts.holding(url.pathname.slice(BANK_PAGE_PREFIX.length));
      return handleBankPage(method, url, body, account, origin);
    }
    const stripeJs = handleStripeJs(method, url, origin);
    if (stripeJs) return stripeJs;
    if (url.pathname.startsWith("/_emulator/"))
      return send(handleControl(method, url.pathname, body, accounts, req.headers.authorization, origin));
    // A page on any origin may call it with the publishable key (CORS), not only the element's iframe.
    const browserMethod =
      url.pathname === BROWSER_PATH ? "POST" : BROWSER_INTENT_PATH.test(url.pathname) ? "GET" : null;
    if (browserMethod && method === "OPTIONS") {
      const headers = { ...CORS, ...PREFLIGHT, "Access-Control-Allow-Methods": browserMethod };
      return { kind: "send", status: 204, body: "", headers } satisfies Reply;
    }
    if (isBrowserIntentRead(method, url.pathname, req.headers.authorization)) {
      const auth = authenticate(req.headers.authorization);
      const reply = browserIntentRead(accounts.forKey(auth.ok ? auth.apiKey : null), url);
      return reply.kind === "send" ? { ...reply, headers: { ...reply.headers, ...CORS } } : reply;
    }
    if (url.pathname.startsWith("/v1/")) {
      // The account of the request's key, taken once: a reset during this request must not redirect it.
      const auth = authenticate(req.headers.authorization);
      const captured = accounts.forKey(auth.ok ? auth.apiKey : null);
      const reply = await handleApi({
        method,
        url,
        headers: req.headers,
        body,
        requestId,
        state: captured,
        restricted: auth.ok ? accounts.restrictedKey(auth.apiKey) : undefined,
        origin,
        shutdown: shutdown.signal,
        note,
      });
      if (url.pathname !== BROWSER_PATH || reply.kind !== "send") return reply;
      return { ...reply, headers: { ...reply.headers, ...CORS } };
    }
    return send(unrecognizedUrl(method, url.pathname));
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostInUrl = host.includes(":") ? `[${host}]` : host;
  publicUrl = `http://${hostInUrl}:${port}`;

  return {
    url: publicUrl,
    port,
    async close() {
      shutdown.abort(); // requests sleeping in injected latency give up without executing
      accounts.close();
      const closed = new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
      server.closeAllConnections(); // keep-alive sockets from the SDK would otherwise hold close() open
      await closed;
      await kept?.save(); // what settled after its answer (a refund, a delivered event)
    },
  };
}

/** The whole body as text, or null when it exceeds the limit. Rejects if the caller disconnects mid-body. */
async function readBody(req: http.IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Returns whether the reply went out; false when it was dropped on purpose or the caller had gone. */
function writeReply(req: http.IncomingMessage, res: http.ServerResponse, reply: Reply, requestId: string): boolean {
  if (reply.kind === "drop") {
    // The lost response: the caller sees the connection reset with no status at all.
    req.socket.destroy();
    return false;
  }
  if (res.destroyed || !req.socket || req.socket.destroyed) return false; // e.g. the caller timed out during injected latency, or its socket is gone
  res.writeHead(reply.status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(reply.body),
    "Request-Id": requestId,
    ...reply.headers,
  });
  res.end(reply.body);
  return true;
}

function tooLarge() {
  return stripeError(413, {
    type: "invalid_request_error",
    message: `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`,
  });
}
