import { isIP } from "node:net";

/**
 * Which webhook URLs the appliance will POST to. Only http and https; no credentials in the URL;
 * loopback, private, link-local and unique-local addresses only when the operator allow-listed them
 * (on-prem receivers are common, but a tenant must not aim the appliance at its own admin ports).
 * The dispatcher checks the resolved addresses again at send time and connects to those addresses.
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
  // Nothing listens on port 0: every attempt would fail until the delivery went dead, two days on.
  if (url.port === "0") return { ok: false, reason: "port 0 cannot be connected to" };
  const host = hostOf(url);
  if (isPrivateHost(host) && !isAllowListed(host, policy.allowPrivate)) {
    return {
      ok: false,
      reason: `host ${host} is on a private or loopback network; an operator must allow-list it (AML_WEBHOOK_ALLOW_PRIVATE)`,
    };
  }
  return { ok: true, url };
}

/**
 * A receiver URL as it may be recorded (audit details, like the delivery log's attempt URLs): origin
 * and path only. A query string often carries a token for the receiver, and records outlive it.
 */
export function recordableUrl(raw: string): string;
export function recordableUrl(raw: string | null): string | null;
export function recordableUrl(raw: string | null): string | null {
  if (raw === null) return null;
  try {
    return originAndPath(new URL(raw));
  } catch {
    return withoutQuery(raw);
  }
}

/** A URL's text without its query string and fragment, as written (not normalised by parsing). */
export function withoutQuery(text: string): string {
  return text.replace(/[?#].*$/s, "");
}

/** A host as the policy compares it: no IPv6 brackets, lower case, no trailing root dots. */
export function normaliseHost(text: string): string {
  return text.replace(/^\[|\]$/g, "").toLowerCase().replace(/\.+$/, "");
}

/** The URL's host as the policy compares it (normaliseHost). */
export function hostOf(url: URL): string {
  return normaliseHost(url.hostname);
}

/** The parts of a receiver URL that may be recorded: no query string, no fragment. */
export function originAndPath(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** True for names and literal addresses that point inside the appliance's own networks. */
export function isPrivateHost(host: string): boolean {
  // "localhost." is the same name as "localhost": a trailing root dot must not slip past the name checks.
  const name = host.toLowerCase().replace(/\.+$/, "");
  if (name === "localhost" || name.endsWith(".localhost") || name.endsWith(".local") || name.endsWith(".internal")) {
    return true;
  }
  const kind = isIP(name);
  if (kind === 4) return isPrivateV4(v4ToInt(name));
  if (kind === 6) return isPrivateV6(name);
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
  ["192.0.0.0", 24], // IETF protocol assignments: DS-Lite B4/AFTR, NAT64 discovery (192.0.0.170/171)
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

function inV4Range(ip: number, base: number, bits: number): boolean {
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return ((ip & mask) >>> 0) === ((base & mask) >>> 0);
}

function isPrivateV4(ip: number): boolean {
  return PRIVATE_V4.some(([base, bits]) => inV4Range(ip, v4ToInt(base), bits));
}

/** A valid IPv6 literal (isIP === 6) as a 128-bit number; handles "::" and a trailing dotted IPv4 part. */
function v6ToBigInt(ip: string): bigint {
  let text = ip.toLowerCase();
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/)?.[1];
  if (dotted) {
    const n = v4ToInt(dotted);
    text = `${text.slice(0, -dotted.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].reduce((acc, group) => (acc << 16n) + BigInt(Number.parseInt(group, 16)), 0n);
}

function inV6Range(ip: bigint, base: bigint, bits: number): boolean {
  const mask = bits === 0 ? 0n : ((1n << BigInt(bits)) - 1n) << BigInt(128 - bits);
  return (ip & mask) === (base & mask);
}

/**
 * Ranges that carry an IPv4 address, judged by that address: a public one is public, a private one
 * private. The IPv4 sits in the low 32 bits, except for 6to4, where it follows the 2002: prefix.
 */
const V4_EMBEDDING_V6: ReadonlyArray<{ base: string; bits: number; v4Shift: bigint }> = [
  { base: "::ffff:0:0", bits: 96, v4Shift: 0n }, // IPv4-mapped
  { base: "::ffff:0:0:0", bits: 96, v4Shift: 0n }, // IPv4-translated (SIIT)
  { base: "64:ff9b::", bits: 96, v4Shift: 0n }, // NAT64 well-known prefix
  { base: "2002::", bits: 16, v4Shift: 80n }, // 6to4: 2002:AABB:CCDD::/48 is IPv4 A.B.C.D
];

const PRIVATE_V6: ReadonlyArray<[string, number]> = [
  ["::", 96], // unspecified, loopback and the deprecated IPv4-compatible form
  ["64:ff9b:1::", 48], // NAT64 local-use prefix: translated by a gateway inside the operator's network
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
];

function isPrivateV6(ip: string): boolean {
  // The URL parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1, so the embedded IPv4 is read numerically.
  const value = v6ToBigInt(ip);
  const embedding = V4_EMBEDDING_V6.find(({ base, bits }) => inV6Range(value, v6ToBigInt(base), bits));
  if (embedding) return isPrivateV4(Number((value >> embedding.v4Shift) & 0xffffffffn));
  return PRIVATE_V6.some(([base, bits]) => inV6Range(value, v6ToBigInt(base), bits));
}

function prefixBits(text: string | undefined, max: number): number | null {
  if (text === undefined) return max;
  if (!/^\d{1,3}$/.test(text)) return null;
  const bits = Number(text);
  return bits <= max ? bits : null;
}

/**
 * A host name: letters, digits, hyphens and underscores in labels of 1-63, 253 at most, a trailing
 * root dot allowed. Underscores are not DNS host names, but a URL parser takes them and container
 * networks name services with them (Docker Compose's "aml_receiver").
 */
const HOST_NAME_RE = /^(?=.{1,253}\.?$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/;

/** An allow-list entry as read: a host name, or an address range (an address alone is its own /32 or /128). */
type AllowRule = { kind: "name"; name: string } | { kind: "range"; family: 4 | 6; base: string; bits: number } | { kind: "invalid"; problem: string };

/** Reads one allow-list entry; the one reading both the configuration check and the match use. */
function parseAllowRule(entry: string): AllowRule {
  const rule = entry.trim().toLowerCase();
  const [base = "", bitsText, extra] = rule.split("/");
  if (extra !== undefined) return { kind: "invalid", problem: "is not a host name, an IP address or a CIDR range: it has more than one /" };
  const family = isIP(base);
  if (family === 4 || family === 6) {
    const max = family === 4 ? 32 : 128;
    const bits = prefixBits(bitsText, max);
    return bits === null ? { kind: "invalid", problem: `has a prefix length that is not a whole number from 0 to ${max}` } : { kind: "range", family, base, bits };
  }
  if (bitsText !== undefined) return { kind: "invalid", problem: "is not a CIDR range: the part before the / must be an IP address" };
  const host = hostAsUrlsReadIt(rule);
  if (host === null) {
    return { kind: "invalid", problem: "is not a host name, an IP address or a CIDR range (a.b.c.d/n or an IPv6 prefix/n, without brackets)" };
  }
  const hostFamily = isIP(host);
  if (hostFamily === 4 || hostFamily === 6) return { kind: "range", family: hostFamily, base: host, bits: hostFamily === 4 ? 32 : 128 };
  return { kind: "name", name: host };
}

/**
 * A name entry read as the URL parser reads a webhook URL's host, so that it can equal one: "127.1"
 * and "0x7f000001" are 127.0.0.1, "bücher.internal" is xn--bcher-kva.internal, "hooks.corp." is
 * hooks.corp. Null for what no URL's host can be ("256.1.1.1", "*.corp", "-x-"), and for anything
 * beyond a host ("host:8080", "user@host"), which the parser would otherwise drop silently.
 */
function hostAsUrlsReadIt(rule: string): string | null {
  if (rule === "" || /[\s:@?#\\[\]%]/.test(rule)) return null;
  let hostname: string;
  try {
    hostname = new URL(`http://${rule}/`).hostname;
  } catch {
    return null;
  }
  const host = normaliseHost(hostname);
  if (isIP(host) !== 0) return host;
  return HOST_NAME_RE.test(host) ? host : null;
}

/**
 * Why an allow-list entry could never match a webhook host, or null when isAllowListed can read it:
 * a host name, an IP address, or a CIDR range (IPv4 a.b.c.d/n, IPv6 prefix/n). Checked when the
 * configuration loads, so a typo ("10.0.0.0/99", "[::1]") stops start-up instead of silently
 * allowing nothing.
 */
export function allowListEntryProblem(entry: string): string | null {
  const rule = parseAllowRule(entry);
  return rule.kind === "invalid" ? rule.problem : null;
}

/**
 * Entries as parsed, by their text. The entries are the configuration's (and a proxy's no_proxy
 * patterns), a handful read on every check at send time; a name entry costs a URL parse.
 */
const parsedRules = new Map<string, AllowRule>();
const PARSED_RULES_KEPT = 1_000;

function allowRuleOf(entry: string): AllowRule {
  let rule = parsedRules.get(entry);
  if (rule === undefined) {
    rule = parseAllowRule(entry);
    if (parsedRules.size < PARSED_RULES_KEPT) parsedRules.set(entry, rule);
  }
  return rule;
}

export function isAllowListed(host: string, allow: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.+$/, "");
  const family = isIP(name);
  return allow.some((entry) => {
    const rule = allowRuleOf(entry);
    if (rule.kind === "name") return rule.name === name;
    if (rule.kind === "invalid" || rule.family !== family) return false;
    return family === 4 ? inV4Range(v4ToInt(name), v4ToInt(rule.base), rule.bits) : inV6Range(v6ToBigInt(name), v6ToBigInt(rule.base), rule.bits);
  });
}
