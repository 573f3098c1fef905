/**
 * The address a request came from, for the per-address limits, as the
 * deployment defines it (README, "Client addresses"):
 *
 * - `CLIENT_IP_HEADER` (e.g. `CF-Connecting-IP`): the header a proxy in front
 *   sets to the client's address, replacing whatever the client sent;
 * - `TRUSTED_PROXY_HOPS=n`: n proxies in front, each appending the peer it saw
 *   to `X-Forwarded-For`, so the n-th entry from the right is the client
 *   (with fewer entries, the leftmost: a request that skipped a proxy);
 * - neither: the socket's peer, never a header the client wrote.
 *
 * The socket's peer reaches route handlers in `PEER_HEADER`, which the
 * server's request hook (lib/abuse/peer-hook.ts) writes on every request,
 * replacing any a client sent. IPv6 addresses are keyed per /64, the block
 * one subscriber gets; IPv4 per address.
 */
import { isIP } from "node:net";

/** The header the request hook writes the socket's peer into (any client-sent value is replaced). */
export const PEER_HEADER = "x-checkout-socket-peer";

export interface ClientAddressSettings {
  trustedProxyHops: number;
  clientIpHeader: string | undefined;
}

export function clientAddress(headers: Headers, settings: ClientAddressSettings): string {
  const peer = addressKey(headers.get(PEER_HEADER)?.trim() || "unknown");
  // A proxy's entry that is no address (`unknown`, an obfuscated name) counts as the peer: never a bucket per value.
  return clientKey(rawClientAddress(headers, settings, peer)) ?? peer;
}

function rawClientAddress(headers: Headers, settings: ClientAddressSettings, peer: string): string {
  if (settings.clientIpHeader) {
    // Set by the proxy in front; a request without it did not come through that proxy.
    return headers.get(settings.clientIpHeader)?.split(",")[0]?.trim() || peer;
  }
  if (settings.trustedProxyHops > 0) {
    const hops = (headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((hop) => hop.trim())
      .filter(Boolean);
    if (hops.length === 0) return peer;
    return hops[Math.max(0, hops.length - settings.trustedProxyHops)]!;
  }
  return peer;
}

/**
 * One key per client: IPv4 as is (a dual-stack socket's ::ffff:a.b.c.d too),
 * IPv6 by its /64, either without a port (Azure Application Gateway writes
 * `a.b.c.d:port` into `X-Forwarded-For`, a port of its own per connection).
 */
export function addressKey(address: string): string {
  return clientKey(address) ?? address.slice(0, 100);
}

/** `addressKey` of an address; null for anything that is no IP address. */
function clientKey(address: string): string | null {
  const bare = address
    .replace(/^\[|\](:\d+)?$/g, "")
    .replace(/%.*$/, "")
    .replace(/^(\d+\.\d+\.\d+\.\d+):\d+$/, "$1");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped && isIP(mapped[1]!) === 4) return mapped[1]!;
  if (isIP(bare) === 6) return `${expandIpv6(bare).slice(0, 4).join(":")}::/64`;
  return isIP(bare) === 4 ? bare : null;
}

/** The eight hextets of an IPv6 address, lower-case, without leading zeros. */
function expandIpv6(address: string): string[] {
  let text = address.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const fill = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...fill, ...right].map((h) => parseInt(h, 16).toString(16));
}
