import { describe, expect, test } from "bun:test";
import { checkWebhookUrl, isAllowListed, isPrivateHost } from "@/webhooks/url-policy";

/**
 * Addresses that carry (or reach through a translator) an IPv4 address: 6to4, IPv4-translated,
 * the NAT64 local-use prefix, and 192.0.0.0/24. A private IPv4 must not be reachable by spelling it
 * as one of these.
 */
const NONE: readonly string[] = [];

describe("private through an embedded or translated IPv4", () => {
  test.each([
    ["6to4 of loopback", "2002:7f00:1::"],
    ["6to4 of loopback with an interface id", "2002:7f00:0001:1234::abcd"],
    ["6to4 of 10/8", "2002:a01:203::1"],
    ["6to4 of 192.168/16", "2002:c0a8:101::"],
    ["6to4 of cloud metadata", "2002:a9fe:a9fe::1"],
    ["6to4 of 0.0.0.0", "2002::"],
    ["IPv4-translated loopback", "::ffff:0:7f00:1"],
    ["IPv4-translated loopback, dotted", "::ffff:0:127.0.0.1"],
    ["IPv4-translated 10/8", "::ffff:0:a00:1"],
    ["IPv4-translated metadata", "0:0:0:0:ffff:0:a9fe:a9fe"],
    ["NAT64 local-use prefix", "64:ff9b:1::1"],
    ["NAT64 local-use prefix, public-looking tail", "64:ff9b:1:ffff::808:808"],
    ["NAT64 local-use prefix, upper end", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"],
    ["IETF protocol assignments 192.0.0.0/24", "192.0.0.1"],
    ["DS-Lite B4", "192.0.0.2"],
    ["NAT64 discovery 192.0.0.170", "192.0.0.170"],
    ["192.0.0.0/24 upper end", "192.0.0.255"],
    ["IPv4-mapped 192.0.0.0/24", "::ffff:192.0.0.8"],
    ["6to4 of 192.0.0.0/24", "2002:c000:9::"],
  ])("%s: %s", (_what, host) => {
    expect(isPrivateHost(host)).toBe(true);
  });
});

describe("still public", () => {
  test.each([
    ["6to4 of a public address", "2002:808:808::1"],
    ["6to4 of 203.0.113.10", "2002:cb00:710a::"],
    ["IPv4-translated public address", "::ffff:0:808:808"],
    ["IPv4-mapped public address", "::ffff:8.8.8.8"],
    ["NAT64 well-known prefix of a public address", "64:ff9b::8.8.8.8"],
    ["64:ff9b:2::, just past the local-use /48", "64:ff9b:2::1"],
    ["64:ff9b:0:1::, inside 64:ff9b::/32 but neither prefix", "64:ff9b:0:1::1"],
    ["2003::, just past 2002::/16", "2003:7f00:1::"],
    ["2001:db8::, documentation (unchanged)", "2001:db8::10"],
    ["192.0.1.1, just past 192.0.0.0/24", "192.0.1.1"],
    ["191.255.255.255, just before it", "191.255.255.255"],
    ["192.0.2.1 (TEST-NET-1, unchanged)", "192.0.2.1"],
  ])("%s: %s", (_what, host) => {
    expect(isPrivateHost(host)).toBe(false);
  });
});

describe("as webhook URLs", () => {
  test.each([
    ["6to4 of loopback", "http://[2002:7f00:1::]/hook"],
    ["IPv4-translated loopback, as the URL parser writes it", "http://[::ffff:0:127.0.0.1]/hook"],
    ["NAT64 local-use", "http://[64:ff9b:1::a00:1]/hook"],
    ["192.0.0.0/24", "http://192.0.0.170/hook"],
    ["192.0.0.0/24 as one decimal number", "http://3221225482/hook"],
  ])("%s is refused: %s", (_what, url) => {
    const check = checkWebhookUrl(url, { allowPrivate: NONE });
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toContain("private");
  });

  test.each([
    ["6to4 of a public address", "https://[2002:808:808::1]/hook"],
    ["IPv4-translated public address", "https://[::ffff:0:808:808]/hook"],
  ])("%s is accepted: %s", (_what, url) => {
    expect(checkWebhookUrl(url, { allowPrivate: NONE }).ok).toBe(true);
  });

  test("an operator can allow-list them like any private address", () => {
    expect(checkWebhookUrl("http://192.0.0.170/hook", { allowPrivate: ["192.0.0.0/24"] }).ok).toBe(true);
    expect(checkWebhookUrl("http://[64:ff9b:1::a00:1]/hook", { allowPrivate: ["64:ff9b:1::/48"] }).ok).toBe(true);
    expect(isAllowListed("2002:7f00:1::", ["2002::/16"])).toBe(true);
    expect(checkWebhookUrl("http://[2002:7f00:1::]/hook", { allowPrivate: ["10.0.0.0/8"] }).ok).toBe(false);
  });
});
