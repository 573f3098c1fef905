import "server-only";
import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { PEER_HEADER } from "./client-address";

/**
 * Writes each request's socket peer into `PEER_HEADER` before the server
 * handles it, replacing any value a client sent: `next start` hands route
 * handlers a Request without the socket, and a header is the one thing of
 * the Node request that reaches them. Node publishes
 * `http.server.request.start` for every request of every HTTP server in the
 * process, synchronously, before the server's `request` event. Installed once
 * per process, from instrumentation.ts.
 */
export function installPeerHook(): void {
  const global = globalThis as unknown as { checkoutPeerHook?: boolean };
  if (global.checkoutPeerHook) return;
  global.checkoutPeerHook = true;
  subscribe("http.server.request.start", (message) => {
    const { request, socket } = message as { request: IncomingMessage; socket: Socket };
    request.headers[PEER_HEADER] = socket.remoteAddress ?? "unknown";
  });
}
