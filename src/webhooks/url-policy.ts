import { isIP } from "node:net";

/**
 * Which webhook URLs the appliance will POST to. Only http and https; no credentials in the URL;
 * loopback, private, link-local and unique-local addresses only when the operator allow-listed them
 * (on-prem receivers are common, but a tenant must not aim the appliance at its own admin ports).
 * The dispatcher checks the resolved address again at send time.
 */
export interface UrlPolicy {
  /** Hostnames, IP addresses or CIDR ranges (IPv4 a.b.c.d/n, IPv6 prefix/n) that may be private. */
  allowPrivate: readonly string[];
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

export function checkWebhookUrl(raw: string, policy: UrlPolicy): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "not a valid absolute URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `scheme ${url.protocol.replace(":", "")} is not allowed; use http or https` };
  }
  if (url.username || url.password) return { ok: false, reason: "credentials in the URL are not allowed" };
  if (url.hash) return { ok: false, reason: "a fragment is not allowed" };
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (isPrivateHost(host) && !isAllowListed(host, policy.allowPrivate)) {
    return {
      ok: false,
      reason: `host ${host} is on a private or loopback network; an operator must allow-list it (AML_WEBHOOK_ALLOW_PRIVATE)`,
    };
  }
  return { ok: true, url };
}

/** True for names and literal addresses that point inside the appliance's own networks. */
export function isPrivateHost(host: string): boolean {
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal")) {
    return true;
  }
  const kind = isIP(host);
  if (kind === 4) return isPrivateV4(host);
  if (kind === 6) return isPrivateV6(host);
  return false;
}

function v4ToInt(ip: string): number {
  return ip.split(".").reduce((acc, part) => (acc << 8) + Number(part), 0) >>> 0;
}

const PRIVATE_V4: ReadonlyArray<[string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

function inV4Range(ip: string, base: string, bits: number): boolean {
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (v4ToInt(ip) & mask) === (v4ToInt(base) & mask);
}

function isPrivateV4(ip: string): boolean {
  return PRIVATE_V4.some(([base, bits]) => inV4Range(ip, base, bits));
}

function isPrivateV6(ip: string): boolean {
  const lower = ip.toLowerCase();
  if (lower === "::" || lower === "::1") return true;
  const mapped = lower.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
  if (mapped?.[1]) return isPrivateV4(mapped[1]);
  return /^(fc|fd|fe8|fe9|fea|feb|ff)/.test(lower);
}

function isAllowListed(host: string, allow: readonly string[]): boolean {
  return allow.some((entry) => {
    const rule = entry.toLowerCase();
    if (rule === host) return true;
    const [base, bitsText] = rule.split("/");
    if (bitsText !== undefined && base && isIP(base) === 4 && isIP(host) === 4) {
      return inV4Range(host, base, Number(bitsText));
    }
    if (bitsText !== undefined && base && isIP(base) === 6 && isIP(host) === 6) {
      return host.startsWith(base.replace(/::$/, ":").replace(/:+$/, ""));
    }
    return false;
  });
}
