import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { checkWebhookUrl, isAllowListed, isPrivateHost, type UrlCheck, type UrlPolicy } from "./url-policy";

export type LookupFn = (hostname: string) => Promise<ReadonlyArray<{ address: string }>>;

export const systemLookup: LookupFn = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * The URL policy again at send time, now on the resolved addresses: a public name that resolves to a
 * private address (DNS changed since onboarding, or was made to) is refused unless allow-listed.
 * An IP literal was already checked by checkWebhookUrl. fetch resolves the name once more, so a DNS
 * answer that flips between this check and the connect is not covered; redirects are never followed.
 */
/** A refusal because the name did not resolve (rather than because it resolved somewhere refused). */
export type SendTargetCheck = UrlCheck | { ok: false; reason: string; unresolved: true };

export async function checkSendTarget(raw: string, policy: UrlPolicy, lookup: LookupFn, timeoutMs: number): Promise<SendTargetCheck> {
  const check = checkWebhookUrl(raw, policy);
  if (!check.ok) return check;
  const host = check.url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (isIP(host) !== 0 || isAllowListed(host, policy.allowPrivate)) return check;

  let addresses: ReadonlyArray<{ address: string }>;
  try {
    addresses = await withTimeout(lookup(host), timeoutMs, `resolving ${host} took longer than ${timeoutMs} ms`);
  } catch (error) {
    return { ok: false, reason: `could not resolve ${host}: ${(error as Error).message}`, unresolved: true };
  }
  if (addresses.length === 0) return { ok: false, reason: `${host} resolved to no address`, unresolved: true };
  for (const { address } of addresses) {
    if (isPrivateHost(address.toLowerCase()) && !isAllowListed(address.toLowerCase(), policy.allowPrivate)) {
      return {
        ok: false,
        reason: `host ${host} resolves to private address ${address}; an operator must allow-list it (AML_WEBHOOK_ALLOW_PRIVATE)`,
      };
    }
  }
  return check;
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
