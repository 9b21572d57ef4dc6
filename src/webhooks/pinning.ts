import { isIP } from "node:net";
import { hostOf, isAllowListed, normaliseHost, withoutQuery } from "./url-policy";

/**
 * Sending to the addresses the URL policy checked (send-target.ts), not to whatever the name
 * resolves to when fetch connects: a DNS answer that changed in between (DNS rebinding) could
 * otherwise point a delivery at loopback or the appliance's own network.
 */

/**
 * Where one POST connects. For a checked host name: the URL with an address in place of the name,
 * the name in the Host header, and for https the name as the TLS server name, so the certificate
 * is still verified against the name (Bun's fetch checks it against tls.serverName, and sends it
 * in SNI).
 */
export interface ConnectTarget {
  input: string;
  /** The address connected to, or null when the URL is connected to as written. */
  address: string | null;
  /** The Host header to send, or null to let fetch derive it from `input`. */
  host: string | null;
  /** For https to a pinned address: the name to send in SNI and check the certificate against. */
  serverName: string | null;
}

/**
 * Every target of a receiver, in the resolver's order: one per checked address, or the URL as written
 * when `addresses` is null. Depends only on the receiver, so the dispatcher builds it once per round
 * (send.ts, prepareReceiver) and each delivery only rotates it (targetsForAttempt).
 */
export function pinnedTargets(url: URL, addresses: readonly string[] | null): ConnectTarget[] {
  if (addresses === null) return [{ input: url.href, address: null, host: null, serverName: null }];
  if (addresses.length === 0) throw new Error(`no checked address to send to for ${url.hostname}`);
  const serverName = url.protocol === "https:" ? hostOf(url) : null;
  return addresses.map((address) => {
    const literal = isIP(address) === 6 ? `[${address}]` : address;
    const pinned = new URL(url.href);
    pinned.hostname = literal;
    // URL ignores a hostname it cannot take (a zone id, say) and would keep the name: never send that.
    // It also writes some addresses its own way (::ffff:93.184.216.34 as [::ffff:5db8:d822], 2001:0db8::1
    // compressed), so what tells is whether the name is still there, not whether the text is the same.
    if (pinned.hostname === url.hostname) throw new Error(`cannot send to ${address}: not an address a URL can hold`);
    return { input: pinned.href, address, host: url.host, serverName };
  });
}

/**
 * The targets of one attempt (1-based): every target, starting at `attempt`'s turn. Each attempt
 * starts at the next address, so an address that drops packets (a broken IPv6 route, say) costs one
 * attempt's timeout and the retry goes to another, instead of every attempt timing out on the same
 * first address.
 */
export function targetsForAttempt(targets: readonly ConnectTarget[], attempt: number): ConnectTarget[] {
  const start = (((attempt - 1) % targets.length) + targets.length) % targets.length;
  return [...targets.slice(start), ...targets.slice(0, start)];
}

/**
 * Errors that prove the request never left: nothing was connected to. Only these move on to the
 * next address, so one event is never POSTed twice within an attempt.
 */
const NOT_CONNECTED = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);

/** The last target's error, after every earlier target refused the connection; names the addresses tried. */
export class NotReachedError extends Error {
  override readonly name = "NotReachedError";
  constructor(tried: readonly string[], lastError: unknown) {
    super(`${tried.length === 1 ? tried[0] : `each of ${tried.join(", ")}`}: ${networkErrorText(lastError)}`, { cause: lastError });
  }
}

/**
 * What a connection or answer that failed was, for the tenant's delivery log: the error's code and,
 * for the usual ones, a few words. Not fetch's own message, which names the runtime ("pass
 * `verbose: true` in the second argument to fetch()") and quotes the URL; an unknown code stands
 * alone, and an error without one keeps its message, the URL's query removed.
 */
export function networkErrorText(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^[A-Za-z0-9_]{1,64}$/.test(code)) {
    const words = NETWORK_ERROR_WORDS.get(code);
    return words ? `${code} (${words})` : code;
  }
  return String((error as Error | null)?.message ?? error).replace(/https?:\/\/[^\s"'<>]+/g, withoutQuery);
}

const NETWORK_ERROR_WORDS = new Map([
  ["ECONNREFUSED", "connection refused"],
  ["ECONNRESET", "the connection closed before an answer"],
  ["ETIMEDOUT", "the connection timed out"],
  ["EHOSTUNREACH", "host unreachable"],
  ["ENETUNREACH", "network unreachable"],
  ["EADDRNOTAVAIL", "address not available"],
  ["Malformed_HTTP_Response", "the answer was not valid HTTP"],
  ["ERR_TLS_CERT_ALTNAME_INVALID", "the TLS certificate does not name this host"],
  ["DEPTH_ZERO_SELF_SIGNED_CERT", "self-signed TLS certificate"],
  ["SELF_SIGNED_CERT_IN_CHAIN", "a self-signed TLS certificate in the chain"],
  ["UNABLE_TO_VERIFY_LEAF_SIGNATURE", "the TLS certificate's issuer is not trusted here"],
  ["UNABLE_TO_GET_ISSUER_CERT_LOCALLY", "the TLS certificate's issuer is not trusted here"],
  ["CERT_HAS_EXPIRED", "the TLS certificate has expired"],
  ["CERT_NOT_YET_VALID", "the TLS certificate is not valid yet"],
]);

/** POSTs to the first target that accepts a connection; an answer of any status ends it. */
export async function postToFirstReachable(targets: readonly ConnectTarget[], post: (target: ConnectTarget) => Promise<Response>): Promise<Response> {
  const tried: string[] = [];
  for (const target of targets) {
    try {
      return await post(target);
    } catch (error) {
      if (target.address === null) throw error;
      tried.push(target.address);
      const code = (error as { code?: unknown }).code;
      if (tried.length === targets.length || typeof code !== "string" || !NOT_CONNECTED.has(code)) throw new NotReachedError(tried, error);
    }
  }
  throw new Error("no target to send to");
}

export type ProxyEnv = Readonly<Record<string, string | undefined>>;

/**
 * The egress proxy from the environment that a delivery to `url` goes through, or null to connect
 * directly: https_proxy / HTTPS_PROXY for https, http_proxy / HTTP_PROXY for http, else all_proxy /
 * ALL_PROXY; none when no_proxy / NO_PROXY lists the receiver. A NO_PROXY entry is "*", a name (which
 * also covers its subdomains; a leading "." or "*." is the same), an IP address or a CIDR range (which
 * match a receiver URL holding an address, not a name that resolves to one), each optionally with a
 * ":port" that limits it to that port ("[v6]:port" for IPv6).
 *
 * The dispatcher decides this itself and tells fetch (`proxy` in send.ts) instead of letting fetch
 * read the variables again: a pinned delivery's URL holds the checked address in place of the name,
 * and fetch would judge NO_PROXY against that address, sending a receiver that NO_PROXY names through
 * the proxy. Through a proxy the appliance does not pin: the proxy connects, resolves the name
 * itself, and (as egress proxies at banks do) may allow names rather than addresses, so an address in
 * the URL would be refused there.
 */
export function proxyFor(url: URL, env: ProxyEnv): string | null {
  const scheme = url.protocol === "https:" ? "https" : "http";
  const proxy = env[`${scheme}_proxy`] || env[`${scheme.toUpperCase()}_PROXY`] || env.all_proxy || env.ALL_PROXY;
  if (!proxy) return null;
  const host = hostOf(url);
  const port = url.port || (scheme === "https" ? "443" : "80");
  const noProxy = (env.no_proxy || env.NO_PROXY || "").split(",");
  return noProxy.some((entry) => bypassesProxy(entry.trim().toLowerCase(), host, port)) ? null : proxy;
}

/** Whether one NO_PROXY entry covers the receiver at `host` (as hostOf gives it) and `port`. */
function bypassesProxy(entry: string, host: string, port: string): boolean {
  if (entry === "") return false;
  if (entry === "*") return true;
  let pattern = entry;
  const withPort = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(entry);
  if (withPort) {
    if (withPort[2] !== port) return false;
    pattern = withPort[1] ?? "";
  }
  pattern = normaliseHost(pattern);
  // An address or a range: only a URL that holds an address matches it (isAllowListed compares literally).
  if (pattern.includes("/") || isIP(pattern) !== 0) return isAllowListed(host, [pattern]);
  const name = pattern.replace(/^\*?\./, "");
  return name !== "" && (host === name || host.endsWith(`.${name}`));
}
