import { describe, expect, test } from "bun:test";
import { checkSendTarget, type LookupFn } from "@/webhooks/send-target";

const resolvesTo =
  (...addresses: string[]): LookupFn =>
  async () =>
    addresses.map((address) => ({ address }));
const policy = { allowPrivate: [] as string[] };

describe("checkSendTarget (URL policy at send time)", () => {
  test("a public name resolving to public addresses passes", async () => {
    const check = await checkSendTarget("https://hooks.bank.example/aml", policy, resolvesTo("93.184.216.34", "2606:2800:220:1::1"), 1000);
    expect(check.ok).toBe(true);
  });

  test("a public name that now resolves to a private or loopback address is refused", async () => {
    for (const address of ["10.0.0.5", "127.0.0.1", "169.254.169.254", "::1", "fd00::1", "::ffff:192.168.1.1"]) {
      const check = await checkSendTarget("https://hooks.bank.example/aml", policy, resolvesTo("93.184.216.34", address), 1000);
      expect(check).toMatchObject({ ok: false });
      if (!check.ok) expect(check.reason).toContain(address);
    }
  });

  test("an allow-listed private address, range or host name passes", async () => {
    const url = "https://hooks.corp.example/aml";
    expect((await checkSendTarget(url, { allowPrivate: ["10.1.2.3"] }, resolvesTo("10.1.2.3"), 1000)).ok).toBe(true);
    expect((await checkSendTarget(url, { allowPrivate: ["10.0.0.0/8"] }, resolvesTo("10.9.9.9"), 1000)).ok).toBe(true);
    expect((await checkSendTarget(url, { allowPrivate: ["hooks.corp.example"] }, resolvesTo("10.9.9.9"), 1000)).ok).toBe(true);
  });

  test("an allow-listed host name written with a trailing root dot passes, as it does at onboarding", async () => {
    const asked: string[] = [];
    const recording: LookupFn = async (name) => {
      asked.push(name);
      return [{ address: "10.9.9.9" }];
    };
    const allowName = { allowPrivate: ["hooks.corp.example"] };
    expect(await checkSendTarget("https://Hooks.Corp.Example./aml", allowName, recording, 1000)).toMatchObject({ ok: true, addresses: null });
    // Not allow-listed: resolved as written (absolute), and its private address refused.
    const refused = await checkSendTarget("https://other.corp.example./aml", allowName, recording, 1000);
    expect(refused).toMatchObject({ ok: false });
    expect(asked).toEqual(["other.corp.example."]);
  });

  test("IP literals are checked directly, without DNS", async () => {
    const noDns: LookupFn = async () => {
      throw new Error("DNS must not be consulted for an IP literal");
    };
    expect((await checkSendTarget("http://10.0.0.7/hook", policy, noDns, 1000)).ok).toBe(false);
    expect((await checkSendTarget("http://[::1]:8080/hook", policy, noDns, 1000)).ok).toBe(false);
    expect((await checkSendTarget("http://93.184.216.34/hook", policy, noDns, 1000)).ok).toBe(true);
  });

  test("a name that does not resolve, or resolves too slowly, is refused", async () => {
    const failing: LookupFn = async () => {
      throw new Error("ENOTFOUND");
    };
    const slow: LookupFn = () => new Promise((resolve) => setTimeout(() => resolve([{ address: "93.184.216.34" }]), 500));
    expect(await checkSendTarget("https://gone.example/x", policy, failing, 1000)).toMatchObject({ ok: false });
    const timedOut = await checkSendTarget("https://slow.example/x", policy, slow, 50);
    expect(timedOut).toMatchObject({ ok: false });
    if (!timedOut.ok) expect(timedOut.reason).toContain("longer than 50 ms");
  });
});
