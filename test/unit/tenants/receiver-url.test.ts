import { describe, expect, test } from "bun:test";
import { loadConfig } from "@/config";
import { checkReceiverUrl } from "@/tenants/webhook";
import type { LookupFn } from "@/webhooks/send-target";

/**
 * The URL check of onboarding and PUT /v1/tenants/{id}/webhook: checkWebhookUrl, then the send
 * path's resolution check (checkSendTarget) for a host name. Lookups are stubbed here; the real
 * resolver is exercised in test/http/tenant-webhook.test.ts and test/cli/tenant-webhook-cli.test.ts.
 */
function ctx(allowPrivateNetworks: string[] = [], timeoutMs = 200) {
  return { config: loadConfig({ env: {}, flags: { logLevel: "silent", webhooks: { allowPrivateNetworks, timeoutMs } } }) };
}

function resolvesTo(...addresses: string[]): LookupFn & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (host: string) => {
    calls.push(host);
    return addresses.map((address) => ({ address }));
  };
  return Object.assign(fn, { calls });
}

describe("a host name is resolved", () => {
  test("to public addresses only: accepted", async () => {
    const lookup = resolvesTo("203.0.113.7", "2001:db8::7");
    expect((await checkReceiverUrl(ctx(), "https://hooks.bank.example/aml", lookup)).ok).toBe(true);
    expect(lookup.calls).toEqual(["hooks.bank.example"]);
  });

  test.each([
    ["only a private address", ["10.1.2.3"], "10.1.2.3"],
    ["loopback", ["127.0.0.1"], "127.0.0.1"],
    ["a public and a private address", ["203.0.113.7", "192.168.0.9"], "192.168.0.9"],
    ["IPv6 unique-local", ["fd00::1"], "fd00::1"],
    ["6to4 of loopback", ["2002:7f00:1::"], "2002:7f00:1::"],
    ["192.0.0.0/24", ["192.0.0.170"], "192.0.0.170"],
  ])("to %s: refused, naming the name and the address", async (_what, addresses, shown) => {
    const check = await checkReceiverUrl(ctx(), "https://hooks.bank.example/aml", resolvesTo(...addresses));
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.reason).toBe(`host hooks.bank.example resolves to private address ${shown}; an operator must allow-list it (AML_WEBHOOK_ALLOW_PRIVATE)`);
    }
  });

  test("to an allow-listed private address or range: accepted", async () => {
    expect((await checkReceiverUrl(ctx(["10.0.0.0/8"]), "https://hooks.bank.example/aml", resolvesTo("10.1.2.3"))).ok).toBe(true);
    expect((await checkReceiverUrl(ctx(["10.1.2.3"]), "https://hooks.bank.example/aml", resolvesTo("10.1.2.3"))).ok).toBe(true);
  });

  test("an allow-listed name is not resolved at all", async () => {
    const lookup = resolvesTo("10.1.2.3");
    expect((await checkReceiverUrl(ctx(["hooks.bank.example"]), "https://hooks.bank.example/aml", lookup)).ok).toBe(true);
    expect(lookup.calls).toEqual([]);
  });
});

describe("a name that cannot be resolved now is accepted (the dispatcher resolves it again when it claims the tenant's deliveries)", () => {
  test("NXDOMAIN", async () => {
    const failing: LookupFn = async () => {
      throw new Error("getaddrinfo ENOTFOUND hooks.bank.example");
    };
    expect((await checkReceiverUrl(ctx(), "https://hooks.bank.example/aml", failing)).ok).toBe(true);
  });

  test("no address", async () => {
    expect((await checkReceiverUrl(ctx(), "https://hooks.bank.example/aml", resolvesTo())).ok).toBe(true);
  });

  test("a lookup slower than webhooks.timeoutMs, even one that answers a private address later", async () => {
    const slow: LookupFn = async () => {
      await Bun.sleep(300);
      return [{ address: "10.1.2.3" }];
    };
    const started = performance.now();
    expect((await checkReceiverUrl(ctx([], 100), "https://hooks.bank.example/aml", slow)).ok).toBe(true);
    expect(performance.now() - started).toBeLessThan(280);
  });
});

describe("what needs no lookup", () => {
  test.each([
    ["a public IP literal", "https://203.0.113.7/aml", true],
    ["a private IP literal", "http://10.1.2.3/aml", false],
    ["an ftp URL", "ftp://hooks.bank.example/aml", false],
    ["credentials", "https://u:p@hooks.bank.example/aml", false],
  ])("%s is judged without DNS", async (_what, url, ok) => {
    const lookup = resolvesTo("10.9.9.9");
    expect((await checkReceiverUrl(ctx(), url, lookup)).ok).toBe(ok);
    expect(lookup.calls).toEqual([]);
  });
});
