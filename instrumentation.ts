/**
 * Runs once when a server instance starts: configuration is parsed here so a
 * bad or missing variable stops the server with a line naming it, before any
 * request; then the lab (only when switched on) subscribes to the app's
 * events and the optional in-process maintenance starts.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Before anything loads pg or undici, so their instrumentations can wrap them; nothing at all without OTEL_*.
  const { startTracing, tracingWanted } = await import("./lib/tracing/start");
  if (tracingWanted()) startTracing();
  // Also for a bare `next start` (a container, say), not only `npm start`.
  const { catalogueCurrencyOrExit, configurationOrExit, shopIdentityOrExit } = await import("./lib/startup");
  const config = await catalogueCurrencyOrExit(await shopIdentityOrExit(configurationOrExit()));
  // Route handlers learn the socket's peer from a header only this hook writes (lib/abuse/client-address.ts).
  const { installPeerHook } = await import("./lib/abuse/peer-hook");
  installPeerHook();
  // Duplicates of an attempt this process runs are answered before Next.js (app/api/checkout/route.ts).
  const { installFrontDoor } = await import("@checkout/idempotency/front-door");
  installFrontDoor();
  const { labEnabled } = await import("./lib/lab/enabled");
  if (labEnabled(config)) {
    // The lab (/lab) listens to the app's events; the app never calls it.
    const { attachLab } = await import("./lib/lab/server/attach");
    attachLab();
  }
  if (config.MAINTENANCE_INTERVAL_MS > 0) {
    const { startMaintenance } = await import("./lib/maintenance");
    startMaintenance(config.MAINTENANCE_INTERVAL_MS, config.EVENTS_CATCH_UP_INTERVAL_MS, config.AUDIT_INTERVAL_MS);
  }
}
