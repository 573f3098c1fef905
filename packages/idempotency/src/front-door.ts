/**
 * Duplicates past the framework: a request to a registered route that
 * carries a key an attempt of this process holds is handed to the route's
 * own handler straight from Node's HTTP server, before the framework builds
 * its request, span and response around it. The handler is the one the
 * framework would call, so the answer is the same (`409` for the same body,
 * `422` for another, or, if the attempt ended meanwhile, whatever its claim
 * says); only the framework's cost is skipped. Every other request, and any
 * request whose body is not framed by a small Content-Length, goes to the
 * framework untouched. Node's HTTP server only (`next start`, a custom
 * server); see the README's "Duplicates before the framework".
 */
import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { keyInFlight } from "./in-flight";
import { normaliseKey } from "./keys";

export interface FrontDoorRoute {
  /** The request's path, exactly (no query string). */
  path: string;
  /** The scope's endpoint the route claims under, e.g. `POST /api/payments`. */
  endpoint: string;
  /** The route's handler: the same function the framework calls. */
  handler(request: Request): Promise<Response>;
  /** Bodies up to this many bytes, framed by Content-Length, are read here; larger ones go to the framework. */
  maxBodyBytes: number;
  /** Default `Idempotency-Key`. */
  header?: string;
  /** Headers the framework adds to the route's answers (its configuration's), added here too. */
  responseHeaders?(request: Request): Record<string, string>;
}

interface Door {
  installed: boolean;
  answered: number;
  routes: Map<string, FrontDoorRoute>;
  servers: WeakSet<Server>;
}

// On globalThis: the framework bundles the route and the instrumentation hook as separate module copies.
const global = globalThis as unknown as { [key: symbol]: Door | undefined };
const KEY = Symbol.for("@checkout/idempotency/front-door");

function door(): Door {
  global[KEY] ??= { installed: false, answered: 0, routes: new Map(), servers: new WeakSet() };
  return global[KEY];
}

/** Registers (or, after a reload, replaces) `route` for `POST` requests to its path. */
export function frontDoorRoute(route: FrontDoorRoute): void {
  door().routes.set(route.path, route);
}

/** How many requests the door has handed to a route's handler in this process. */
export function frontDoorAnswers(): number {
  return door().answered;
}

/**
 * Puts the door in front of every Node HTTP server of this process: on a
 * server's first request (Node publishes `http.server.request.start` just
 * before it emits `request`), its request listeners are wrapped once.
 * Idempotent; call it where the process starts (Next.js: instrumentation.ts).
 */
export function installFrontDoor(): void {
  const state = door();
  if (state.installed) return;
  state.installed = true;
  subscribe("http.server.request.start", (message) => {
    const { server } = message as { server: Server };
    if (state.servers.has(server)) return;
    state.servers.add(server);
    const listeners = server.listeners("request") as ((req: IncomingMessage, res: ServerResponse) => void)[];
    server.removeAllListeners("request");
    server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      const door = routeFor(state, req);
      if (door) {
        state.answered++;
        void answer(door.route, door.url, req, res);
      } else for (const listener of listeners) listener.call(server, req, res);
    });
  });
}

/** The route `req` is a duplicate for, judged by its method, path, key and declared length alone. */
function routeFor(state: Door, req: IncomingMessage): { route: FrontDoorRoute; url: string } | undefined {
  if (req.method !== "POST" || state.routes.size === 0) return undefined;
  const route = state.routes.get(req.url ?? "");
  if (!route) return undefined;
  const value = req.headers[(route.header ?? "Idempotency-Key").toLowerCase()];
  const key = typeof value === "string" ? normaliseKey(value) : null;
  if (!key || !keyInFlight(route.endpoint, key)) return undefined;
  const length = Number(req.headers["content-length"]);
  if (!(length <= route.maxBodyBytes) || req.headers["transfer-encoding"] !== undefined) return undefined;
  const url = `http://${req.headers.host ?? "localhost"}${route.path}`;
  return URL.canParse(url) ? { route, url } : undefined;
}

async function answer(route: FrontDoorRoute, url: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req);
  // The client went away before its body was whole: nothing to answer, nothing ran.
  if (!body) return void res.destroy();
  try {
    const request = new Request(url, {
      method: "POST",
      headers: headersOf(req),
      body: new Uint8Array(body),
    });
    const response = await route.handler(request);
    const extra = route.responseHeaders?.(request) ?? {};
    for (const [name, value] of Object.entries(extra)) res.setHeader(name, value);
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") res.setHeader(name, value);
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) res.setHeader("set-cookie", cookies);
    res.statusCode = response.status;
    res.end(Buffer.from(await response.arrayBuffer()));
  } catch (err) {
    // As the framework answers a handler that throws: 500, nothing said.
    console.error(err);
    if (!res.headersSent) res.statusCode = 500;
    res.end();
  }
}

/** The whole body, or null when the request ends otherwise (aborted, reset). */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", () => resolve(null));
    req.on("close", () => resolve(null));
  });
}

/** The request's headers, with the `x-forwarded-*` Next.js adds when a client sent none, so the handler sees what it would there. */
function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const https = "encrypted" in req.socket && req.socket.encrypted === true;
  const defaults: Record<string, string | undefined> = {
    "x-forwarded-host": req.headers.host,
    "x-forwarded-port": req.socket.localPort?.toString() ?? (https ? "443" : "80"),
    "x-forwarded-proto": https ? "https" : "http",
    "x-forwarded-for": req.socket.remoteAddress,
  };
  for (const [name, value] of Object.entries(defaults)) if (value && !headers.has(name)) headers.set(name, value);
  return headers;
}
