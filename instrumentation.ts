/**
 * Runs once when a server instance starts: configuration is parsed here so a
 * bad or missing variable stops the server with a message naming it, before
 * any request; then the lab subscribes to the app's events and the optional
 * in-process maintenance starts.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env } = await import("./lib/env");
  // Also for a bare `next start` (a container, say), not only `npm start`.
  const { refuseToServeWithout } = await import("./lib/startup");
  refuseToServeWithout(env());
  const { MAINTENANCE_INTERVAL_MS } = env();
  // The lab (/lab) listens to the app's events; the app never calls it.
  const { attachLab } = await import("./lib/lab/server/attach");
  attachLab();
  if (MAINTENANCE_INTERVAL_MS > 0) {
    const { startMaintenance } = await import("./lib/maintenance");
    startMaintenance(MAINTENANCE_INTERVAL_MS);
  }
}
