import { describe, expect, it } from "vitest";
import { addressKey, clientAddress, PEER_HEADER } from "./client-address";

const direct = { trustedProxyHops: 0, clientIpHeader: undefined };
const headers = (h: Record<string, string>) => new Headers(h);

describe("the client's address", () => {
  it("is the socket's peer without a trusted proxy, whatever X-Forwarded-For says", () => {
    const sent = headers({ [PEER_HEADER]: "192.0.2.7", "x-forwarded-for": "203.0.113.9, 198.51.100.1" });
    expect(clientAddress(sent, direct)).toBe("192.0.2.7");
    expect(clientAddress(headers({ "x-forwarded-for": "203.0.113.9" }), direct)).toBe("unknown");
  });

  it("is the n-th X-Forwarded-For entry from the right with TRUSTED_PROXY_HOPS=n", () => {
    const sent = headers({ [PEER_HEADER]: "10.0.0.2", "x-forwarded-for": "1.1.1.1, 203.0.113.9, 10.0.0.1" });
    expect(clientAddress(sent, { trustedProxyHops: 1, clientIpHeader: undefined })).toBe("10.0.0.1");
    expect(clientAddress(sent, { trustedProxyHops: 2, clientIpHeader: undefined })).toBe("203.0.113.9");
    // Fewer entries than hops: the leftmost, the furthest any proxy saw.
    expect(clientAddress(sent, { trustedProxyHops: 5, clientIpHeader: undefined })).toBe("1.1.1.1");
    // No header at all: the peer.
    expect(
      clientAddress(headers({ [PEER_HEADER]: "10.0.0.2" }), { trustedProxyHops: 1, clientIpHeader: undefined }),
    ).toBe("10.0.0.2");
  });

  it("is CLIENT_IP_HEADER's value when set, and ignores X-Forwarded-For", () => {
    const settings = { trustedProxyHops: 0, clientIpHeader: "CF-Connecting-IP" };
    const sent = headers({
      [PEER_HEADER]: "172.16.0.1",
      "cf-connecting-ip": "203.0.113.5",
      "x-forwarded-for": "9.9.9.9",
    });
    expect(clientAddress(sent, settings)).toBe("203.0.113.5");
    expect(clientAddress(headers({ [PEER_HEADER]: "172.16.0.1" }), settings)).toBe("172.16.0.1");
  });

  it("keys IPv6 per /64 and a dual-stack socket's IPv4 as IPv4", () => {
    expect(addressKey("2001:db8:85a3:1:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:85a3:1::/64");
    expect(addressKey("2001:db8:85a3:1::1")).toBe("2001:db8:85a3:1::/64");
    expect(addressKey("2001:0DB8:85a3:0001:0:0:0:2")).toBe("2001:db8:85a3:1::/64");
    expect(addressKey("[2001:db8::1]:443")).toBe("2001:db8:0:0::/64");
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(addressKey("198.51.100.4")).toBe("198.51.100.4");
  });

  it("drops the port a proxy wrote (Azure Application Gateway), so each connection is not a client of its own", () => {
    const settings = { trustedProxyHops: 1, clientIpHeader: undefined };
    const via = (port: number) =>
      clientAddress(headers({ [PEER_HEADER]: "10.0.0.2", "x-forwarded-for": `203.0.113.7:${port}` }), settings);
    expect(via(51234)).toBe("203.0.113.7");
    expect(via(51240)).toBe("203.0.113.7");
    expect(addressKey("[2001:db8::1]:443")).toBe(addressKey("2001:db8::1"));
  });

  it("counts an entry that is no address as the socket's peer, never as a bucket of its own", () => {
    const settings = { trustedProxyHops: 1, clientIpHeader: undefined };
    for (const entry of ["unknown", "_hidden", "203.0.113.7:x", "a".repeat(40), "zz::/64", "1.2.3.4:80:90"])
      expect(clientAddress(headers({ [PEER_HEADER]: "10.0.0.2", "x-forwarded-for": entry }), settings)).toBe(
        "10.0.0.2",
      );
    const header = { trustedProxyHops: 0, clientIpHeader: "CF-Connecting-IP" };
    expect(clientAddress(headers({ [PEER_HEADER]: "172.16.0.1", "cf-connecting-ip": "nonsense" }), header)).toBe(
      "172.16.0.1",
    );
  });
});
