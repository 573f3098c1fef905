/** One JSON line per event on stdout, with ids only: never card data. */
export function checkoutLogger(event: string, fields: Record<string, unknown>): void {
  console.log(JSON.stringify({ time: new Date().toISOString(), event, ...fields }));
}
