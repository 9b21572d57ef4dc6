import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { checkWebhookUrl, hostOf, isAllowListed, isPrivateHost, type UrlPolicy } from "./url-policy";

export type LookupFn = (hostname: string) => Promise<ReadonlyArray<{ address: string }>>;

export const systemLookup: LookupFn = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * A URL that passed the send-time check. `addresses` are the checked addresses of a host name, which
 * the dispatcher connects to itself (pinning.ts): letting fetch resolve the name again would leave
 * a window in which a DNS answer that flips (DNS rebinding) points the POST at an address the policy
 * refuses. null when the URL is connected to as written: an IP literal (checked by checkWebhookUrl)
 * or a name the operator allow-listed, which is trusted whatever it resolves to.
 */
type SendTarget = { ok: true; url: URL; addresses: readonly string[] | null };

/** A refusal because the name did not resolve (rather than because it resolved somewhere refused). */
export type SendTargetCheck = SendTarget | { ok: false; reason: string } | { ok: false; reason: string; unresolved: true };

/**
 * The URL policy again at send time, now on the resolved addresses: a public name that resolves to a
 * private address (DNS changed since onboarding, or was made to) is refused unless allow-listed.
 * Every address the name resolves to must pass, and those addresses are the ones sent to.
 * Redirects are never followed.
 */
export async function checkSendTarget(raw: string, policy: UrlPolicy, lookup: LookupFn, timeoutMs: number): Promise<SendTargetCheck> {
  const check = checkWebhookUrl(raw, policy);
  if (!check.ok) return check;
  // Compared as onboarding compares it (hostOf): "hooks.corp." is the allow-listed "hooks.corp".
  // The name is still resolved as written, so an absolute name stays absolute.
  const host = hostOf(check.url);
  if (isIP(host) !== 0 || isAllowListed(host, policy.allowPrivate)) return { ok: true, url: check.url, addresses: null };

  let addresses: ReadonlyArray<{ address: string }>;
  try {
    addresses = await withTimeout(lookup(check.url.hostname), timeoutMs, `resolving ${host} took longer than ${timeoutMs} ms`);
  } catch (error) {
    // Named as it was looked up: "hooks.corp." (absolute) may fail where "hooks.corp" resolves.
    return { ok: false, reason: `could not resolve ${check.url.hostname}: ${(error as Error).message}`, unresolved: true };
  }
  if (addresses.length === 0) return { ok: false, reason: `${check.url.hostname} resolved to no address`, unresolved: true };
  for (const { address } of addresses) {
    // A zone-scoped address (fe80::1%eth0) cannot be put in a URL, so it cannot be sent to as checked.
    if (address.includes("%")) {
      return { ok: false, reason: `host ${host} resolves to ${address}, an address with a zone id that deliveries cannot be sent to; an operator can allow-list the host name to send to it by name` };
    }
    if (isPrivateHost(address) && !isAllowListed(address, policy.allowPrivate)) {
      return {
        ok: false,
        reason: `host ${host} resolves to private address ${address}; an operator must allow-list it (AML_WEBHOOK_ALLOW_PRIVATE)`,
      };
    }
  }
  return { ok: true, url: check.url, addresses: addresses.map((a) => a.address) };
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
