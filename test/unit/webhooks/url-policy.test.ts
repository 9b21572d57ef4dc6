import { describe, expect, test } from "bun:test";
import { checkWebhookUrl, isAllowListed, isPrivateHost, recordableUrl } from "@/webhooks/url-policy";

/** The SSRF guard for tenant webhook URLs, table-driven by the trick each row tries. */
const NONE: readonly string[] = [];

describe("accepted public URLs", () => {
  test.each([
    ["plain https", "https://hooks.bank.example/aml"],
    ["http with a port and query", "http://hooks.bank.example:8443/in?source=aml"],
    ["a public IPv4 literal", "https://203.0.113.10/hook"],
    ["a public IPv6 literal", "https://[2001:db8::10]/hook"],
    ["an IPv4-mapped public address", "https://[::ffff:8.8.8.8]/hook"],
    ["a name that merely contains 'localhost'", "https://localhost.bank.example/hook"],
    ["a name ending in 'local' without a dot", "https://hooks.notlocal/hook"],
    ["172.32.x, just outside 172.16/12", "https://172.32.0.1/hook"],
    ["100.128.x, just outside 100.64/10", "https://100.128.0.1/hook"],
  ])("%s: %s", (_trick, url) => {
    const check = checkWebhookUrl(url, { allowPrivate: NONE });
    expect(check.ok).toBe(true);
  });
});

describe("refused URLs", () => {
  test.each([
    ["not a URL", "hooks.bank.example/aml", "not a valid absolute URL"],
    ["ftp scheme", "ftp://hooks.bank.example/aml", "scheme ftp is not allowed"],
    ["file scheme", "file:///etc/passwd", "scheme file is not allowed"],
    ["javascript scheme", "javascript:alert(1)", "scheme javascript is not allowed"],
    ["user and password", "https://user:pass@hooks.bank.example/", "credentials in the URL"],
    ["user only", "https://user@hooks.bank.example/", "credentials in the URL"],
    ["a fragment", "https://hooks.bank.example/#frag", "a fragment is not allowed"],
    ["port 0", "https://hooks.bank.example:0/aml", "port 0 cannot be connected to"],
    ["port 0 written with leading zeros", "https://hooks.bank.example:000/aml", "port 0 cannot be connected to"],
    ["localhost", "http://localhost:8080/admin", "host localhost is on a private"],
    ["LOCALHOST in capitals", "http://LOCALHOST/", "host localhost is on a private"],
    ["localhost with a trailing root dot", "http://localhost./", "host localhost is on a private"],
    ["a .localhost subdomain", "http://api.localhost/", "private"],
    ["an mDNS .local name", "http://printer.local/", "private"],
    ["an .internal name with a trailing dot", "http://metadata.google.internal./", "host metadata.google.internal is on a private"],
    ["loopback", "http://127.0.0.1/", "host 127.0.0.1"],
    ["loopback elsewhere in 127/8", "http://127.255.10.1/", "private"],
    ["loopback with a trailing dot", "http://127.0.0.1./", "host 127.0.0.1"],
    ["loopback as one decimal number", "http://2130706433/", "host 127.0.0.1"],
    ["loopback in hex shorthand", "http://0x7f.1/", "host 127.0.0.1"],
    ["loopback in octal", "http://017700000001/", "host 127.0.0.1"],
    ["loopback shorthand 127.1", "http://127.1/", "host 127.0.0.1"],
    ["0.0.0.0", "http://0.0.0.0/", "private"],
    ["10/8", "http://10.1.2.3/", "private"],
    ["172.16/12 upper edge", "http://172.31.255.255/", "private"],
    ["192.168/16", "http://192.168.1.1/", "private"],
    ["cloud metadata 169.254.169.254", "http://169.254.169.254/latest/meta-data/", "private"],
    ["carrier-grade NAT 100.64/10", "http://100.100.100.100/", "private"],
    ["benchmarking 198.18/15", "http://198.19.0.1/", "private"],
    ["multicast", "http://224.0.0.1/", "private"],
    ["broadcast", "http://255.255.255.255/", "private"],
    ["IPv6 loopback", "http://[::1]/", "host ::1"],
    ["IPv6 loopback spelt out", "http://[0:0:0:0:0:0:0:1]/", "host ::1"],
    ["IPv6 unspecified", "http://[::]/", "private"],
    ["IPv4-mapped loopback", "http://[::ffff:127.0.0.1]/", "private"],
    ["IPv4-mapped loopback in hex", "http://[::ffff:7f00:1]/", "private"],
    ["IPv4-mapped metadata address", "http://[::ffff:169.254.169.254]/", "private"],
    ["IPv4-compatible loopback", "http://[::127.0.0.1]/", "private"],
    ["NAT64 of loopback", "http://[64:ff9b::127.0.0.1]/", "private"],
    ["unique local fd00::/8", "http://[fd12:3456::1]/", "private"],
    ["unique local fc00::/8", "http://[fc00::1]/", "private"],
    ["link-local", "http://[fe80::1]/", "private"],
    ["site-local (deprecated)", "http://[fec0::1]/", "private"],
    ["IPv6 multicast", "http://[ff02::1]/", "private"],
  ])("%s: %s", (_trick, url, reason) => {
    const check = checkWebhookUrl(url, { allowPrivate: NONE });
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toContain(reason);
  });
});

describe("operator allow-list for on-prem receivers", () => {
  test.each([
    ["an exact host name", "http://hooks.corp.internal/aml", ["hooks.corp.internal"], true],
    ["an exact name, written with a trailing dot in the URL", "http://hooks.corp.internal./aml", ["hooks.corp.internal"], true],
    ["a different name under the same suffix", "http://other.corp.internal/aml", ["hooks.corp.internal"], false],
    ["an IPv4 inside the allowed /8", "http://10.20.30.40/aml", ["10.0.0.0/8"], true],
    ["an IPv4 outside the allowed /16", "http://10.21.0.1/aml", ["10.20.0.0/16"], false],
    ["an exact IPv4 without a prefix", "http://192.168.1.10/aml", ["192.168.1.10"], true],
    ["a neighbour of an exact IPv4", "http://192.168.1.11/aml", ["192.168.1.10"], false],
    ["an IPv4 with a /32", "http://192.168.1.10/aml", ["192.168.1.10/32"], true],
    ["an IPv6 inside fd00::/8", "http://[fd12::5]/aml", ["fd00::/8"], true],
    ["an IPv6 inside fd00:1::/32", "http://[fd00:1:ffff::5]/aml", ["fd00:1::/32"], true],
    ["an IPv6 that shares only text with fd00:1::/32", "http://[fd00:10::5]/aml", ["fd00:1::/32"], false],
    ["an exact IPv6 written another way", "http://[fd00:0:0:0:0:0:0:5]/aml", ["fd00::5"], true],
    ["an IPv4 rule does not admit an IPv6 host", "http://[::1]/aml", ["127.0.0.0/8"], false],
    ["a malformed prefix admits nothing", "http://10.0.0.1/aml", ["10.0.0.0/abc"], false],
    ["a prefix longer than the address admits nothing", "http://10.0.0.1/aml", ["10.0.0.1/33"], false],
  ])("%s", (_case, url, allowPrivate, ok) => {
    expect(checkWebhookUrl(url, { allowPrivate }).ok).toBe(ok);
  });

  test("the allow-list never widens anything but private hosts: schemes and credentials are still refused", () => {
    expect(checkWebhookUrl("ftp://10.0.0.1/", { allowPrivate: ["10.0.0.0/8"] }).ok).toBe(false);
    expect(checkWebhookUrl("http://u:p@10.0.0.1/", { allowPrivate: ["10.0.0.0/8"] }).ok).toBe(false);
  });
});

describe("isPrivateHost and isAllowListed on resolved addresses (send-time check)", () => {
  test.each([
    ["127.0.0.1", true],
    ["::ffff:127.0.0.1", true],
    ["::ffff:7f00:1", true],
    ["fd00::1", true],
    ["localhost.", true],
    ["93.184.216.34", false],
    ["2606:2800:220:1:248:1893:25c8:1946", false],
    ["hooks.bank.example", false],
  ])("isPrivateHost(%s) is %p", (host, expected) => {
    expect(isPrivateHost(host)).toBe(expected);
  });

  test("isAllowListed compares addresses numerically", () => {
    expect(isAllowListed("10.1.2.3", ["10.0.0.0/8"])).toBe(true);
    expect(isAllowListed("fd00:1::9", ["fd00:1:0::/48"])).toBe(true);
    expect(isAllowListed("fd00:2::9", ["fd00:1::/48"])).toBe(false);
    expect(isAllowListed("hooks.corp.internal", [])).toBe(false);
  });

  test("isAllowListed: a name with a trailing root dot, in the entry or the host, is the same name", () => {
    expect(isAllowListed("hooks.corp.internal", ["hooks.corp.internal."])).toBe(true);
    expect(isAllowListed("hooks.corp.internal.", ["Hooks.Corp.Internal"])).toBe(true);
    expect(isAllowListed("hooks.corp.internal", ["corp.internal"])).toBe(false);
  });

  test("isAllowListed reads a name entry as a URL's host is read: 127.1 is 127.0.0.1, a Unicode name its xn-- form", () => {
    expect(isAllowListed("127.0.0.1", ["127.1"])).toBe(true);
    expect(isAllowListed("127.0.0.1", ["0x7f000001"])).toBe(true);
    expect(isAllowListed("127.0.0.2", ["127.1"])).toBe(false);
    expect(isAllowListed("xn--bcher-kva.internal", ["bücher.internal"])).toBe(true);
    expect(isAllowListed("256.1.1.1", ["256.1.1.1"])).toBe(false);
  });
});

describe("recordableUrl: what audit entries keep of a receiver URL", () => {
  test.each([
    ["a query string (a token, often)", "https://hooks.bank.example/aml?token=s3cret&x=1", "https://hooks.bank.example/aml"],
    ["a port", "http://hooks.bank.example:8443/in?source=aml", "http://hooks.bank.example:8443/in"],
    ["no path", "https://hooks.bank.example?token=s3cret", "https://hooks.bank.example/"],
    ["nothing to drop", "https://hooks.bank.example/aml", "https://hooks.bank.example/aml"],
    ["not a URL", "hooks.bank.example/aml?token=s3cret", "hooks.bank.example/aml"],
  ])("%s", (_what, url, recorded) => {
    expect(recordableUrl(url)).toBe(recorded);
  });

  test("null stays null", () => {
    expect(recordableUrl(null)).toBeNull();
  });
});
