/**
 * The address a request came from, for the per-address limits. `next start`
 * puts the socket's peer in X-Forwarded-For when the request has none; a
 * proxy in front (TRUST_PROXY=1) appends the peer it saw. Either way the
 * last entry is the one written by a party the shop runs, as long as a proxy
 * that sets the header stands in front: a server reached directly gets
 * whatever a client chose to send, which is why production sits behind one
 * (README, "Deploying").
 */
export function clientAddress(headers: Headers): string {
  const hops = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((hop) => hop.trim())
    .filter(Boolean);
  const last = hops[hops.length - 1];
  // IPv4 clients of a dual-stack socket show as ::ffff:a.b.c.d; one client, one key.
  return (last ?? "unknown").replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "").slice(0, 100);
}
