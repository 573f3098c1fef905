import { createServer } from "node:net";
import { ConfigError } from "./env";

/**
 * Start-up checks that turn what a newcomer meets (a port another program
 * holds) into one line naming the variable to change, before anything starts.
 */
export async function assertPortFree(port: number, variable: string, advice = ""): Promise<void> {
  if (port === 0) return; // any free port
  if (await portFree(port)) return;
  throw new ConfigError(portTaken(port, variable, advice));
}

/** `PORT: port 3000 is already in use; stop what holds it, or set PORT to a free port (e.g. PORT=3001)`. */
export const portTaken = (port: number, variable: string, advice = "") =>
  `${variable}: port ${port} is already in use (another demo or server?); stop what holds it, or set ${variable} to a free port (e.g. ${variable}=${port + 1})${advice}`;

/** Whether nothing listens on `port`: bound as Next binds (all addresses), so any listener there conflicts. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, () => server.close(() => resolve(true)));
  });
}
