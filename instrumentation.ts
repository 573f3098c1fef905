/**
 * Runs once when a server instance starts: configuration is parsed here so a
 * bad variable stops the server with a message naming it, before any request.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env } = await import("./lib/env");
  env();
}
