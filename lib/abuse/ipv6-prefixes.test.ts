import { describe, expect, it } from "vitest";
import { addressKey } from "./client-address";
import { PrefixFloods } from "./ipv6-prefixes";

const T0 = 1_700_000_000_000;
/** The /64 key of the n-th subnet of 2001:db8:5:ab00::/56 (n < 256), and of /56 m of 2001:db8:5::/48. */
const in56 = (n: number) => addressKey(`2001:db8:5:ab${n.toString(16).padStart(2, "0")}::1`);
const in48 = (m: number) => addressKey(`2001:db8:5:${(m << 8).toString(16)}::1`);

describe("IPv6 keys when one prefix floods", () => {
  it("stay per /64 for a few subnets of one /56, then count the whole /56 as one", () => {
    const floods = new PrefixFloods(4, 60_000);
    expect([0, 1, 2, 3].map((n) => floods.key(in56(n), T0))).toEqual([0, 1, 2, 3].map(in56));
    expect(in56(4)).toBe("2001:db8:5:ab04::/64");
    expect(floods.key(in56(4), T0)).toBe("2001:db8:5:ab00::/56");
    // Every /64 of it from then on, the first ones too, through this window and the next.
    expect(floods.key(in56(0), T0 + 1)).toBe("2001:db8:5:ab00::/56");
    expect(floods.key(in56(200), T0 + 60_000)).toBe("2001:db8:5:ab00::/56");
    // A window without the flood, and the /64s count alone again.
    expect(floods.key(in56(0), T0 + 180_000)).toBe(in56(0));
    // Another /56 is not concerned, nor IPv4.
    expect(floods.key(addressKey("2001:db8:6::1"), T0)).toBe("2001:db8:6:0::/64");
    expect(floods.key("192.0.2.1", T0)).toBe("192.0.2.1");
  });

  it("count a whole /48 as one when its /56s flood", () => {
    const floods = new PrefixFloods(4, 60_000);
    const keys = [0, 1, 2, 3, 4, 5].map((m) => floods.key(in48(m), T0));
    expect(keys.slice(0, 4)).toEqual([0, 1, 2, 3].map(in48));
    expect(keys.slice(4)).toEqual(["2001:db8:5::/48", "2001:db8:5::/48"]);
  });
});
