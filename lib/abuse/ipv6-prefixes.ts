/**
 * IPv6 per-address keys beyond /64 when one prefix floods
 * (docs/decisions/0020-a-budget-a-few-cannot-drain.md). A subscriber is
 * given a /64 at least, often a /56 or a /48: 256 or 65 536 /64s, each of
 * which would have a count of its own. Seen from more than `spread` /64s of
 * one /56 in a window, that /56 becomes the key of all of them; from more
 * than `spread` /56s of one /48, that /48. A prefix that flooded in the last
 * window stays one key through this one. Counted in this process: each
 * instance sees the same flood.
 */
export class PrefixFloods {
  private window = Number.NEGATIVE_INFINITY;
  /** prefix → the narrower prefixes seen under it in this window (at most spread + 1 kept). */
  private seen = new Map<string, Set<string>>();
  private floodedBefore = new Set<string>();

  constructor(
    private readonly spread = 16,
    private readonly windowMs = 60_000,
    private readonly maxRemembered = 10_000,
  ) {}

  /** The key to count `key` (an addressKey: IPv4, or an IPv6 `…::/64`) under at `now`. */
  key(key: string, now = Date.now()): string {
    const prefixes = ipv6Prefixes(key);
    if (!prefixes) return key;
    this.rotate(now);
    const { p64, p56, p48 } = prefixes;
    const wide = this.note(p48, p56);
    const narrow = this.note(p56, p64);
    if (wide) return p48;
    return narrow ? p56 : key;
  }

  /** Records `child` under `parent`; whether `parent` floods. */
  private note(parent: string, child: string): boolean {
    let children = this.seen.get(parent);
    if (!children) {
      if (this.seen.size >= this.maxRemembered) this.seen.delete(this.seen.keys().next().value!);
      children = new Set();
      this.seen.set(parent, children);
    }
    if (children.size <= this.spread) children.add(child);
    return children.size > this.spread || this.floodedBefore.has(parent);
  }

  private rotate(now: number): void {
    const window = Math.floor(now / this.windowMs);
    if (window === this.window) return;
    const flooded = new Set<string>();
    if (window === this.window + 1)
      for (const [parent, children] of this.seen) if (children.size > this.spread) flooded.add(parent);
    this.floodedBefore = flooded;
    this.seen = new Map();
    this.window = window;
  }
}

/** An IPv6 /64 key's /56 and /48, or null for any other key. */
function ipv6Prefixes(key: string): { p64: string; p56: string; p48: string } | null {
  const match = /^([0-9a-f]{1,4}):([0-9a-f]{1,4}):([0-9a-f]{1,4}):([0-9a-f]{1,4})::\/64$/.exec(key);
  if (!match) return null;
  const [, a, b, c, d] = match as unknown as [string, string, string, string, string];
  return {
    p64: key,
    p56: `${a}:${b}:${c}:${(parseInt(d, 16) & 0xff00).toString(16)}::/56`,
    p48: `${a}:${b}:${c}::/48`,
  };
}
