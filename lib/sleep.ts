/** The one way to wait in this project: browser, server, scripts and tests alike. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
