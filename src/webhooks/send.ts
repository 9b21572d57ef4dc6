import type { SecretBox } from "@/lib/secret-box";
import type { AttemptRecord, ClaimedRow } from "./outbox-rows";
import { type ConnectTarget, NotReachedError, networkErrorText, pinnedTargets, type ProxyEnv, postToFirstReachable, proxyFor, targetsForAttempt } from "./pinning";
import { checkSendTarget, type LookupFn } from "./send-target";
import { signWebhook } from "./sign";
import { originAndPath, type UrlPolicy } from "./url-policy";

export const WEBHOOK_USER_AGENT = "aml-screening-appliance-webhooks/1.0";

/** fetch as the dispatcher calls it: Bun's init, whose `tls` carries the server name of a pinned address. */
export type FetchFn = (input: string | URL, init: BunFetchRequestInit) => Promise<Response>;

export interface SendDeps {
  secrets: SecretBox;
  urlPolicy: UrlPolicy;
  timeoutMs: number;
  fetch: FetchFn;
  lookup: LookupFn;
  /** The environment whose proxy variables name the egress proxy (process.env; proxyFor in pinning.ts). */
  proxyEnv: ProxyEnv;
  now: () => Date;
}

/** The tenant's receiver as stored now: the URL and secret may have changed since the event was queued. */
export interface Receiver {
  webhookUrl: string | null;
  webhookSecretEnc: string | null;
}

/**
 * A receiver ready to send to: its secret unsealed and its URL checked against the policy, or why
 * not. `targets`: where its POSTs connect (pinning.ts), built once per round; each delivery rotates
 * them by its attempt. `proxy`: fetch's proxy option, the egress proxy (then the one target is the URL
 * as written) or false to connect directly.
 */
export type PreparedReceiver =
  | { ok: true; secret: string; targets: readonly ConnectTarget[]; proxy: Bun.FetchProxyOption; loggedUrl: string }
  | { ok: false; error: string; loggedUrl: string | null };

/**
 * Unseals the signing secret and checks the URL policy on the resolved addresses. The dispatcher does
 * this once per tenant per claim, so a claim of 16 deliveries to one receiver costs one DNS lookup
 * and one unsealing, not 16; the check is still made at send time, milliseconds before the POSTs.
 */
export async function prepareReceiver(
  receiver: Receiver,
  deps: Pick<SendDeps, "secrets" | "urlPolicy" | "lookup" | "timeoutMs" | "proxyEnv">,
): Promise<PreparedReceiver> {
  if (!receiver.webhookUrl || !receiver.webhookSecretEnc) return { ok: false, error: "the tenant has no webhook URL or signing secret configured", loggedUrl: null };
  // The attempt log names the URL a failed attempt was for, as it does a sent one's: an operator
  // reading "could not resolve" needs to see which URL, and the tenant's may have changed since.
  const loggedUrl = loggableUrl(receiver.webhookUrl);
  let secret: string;
  try {
    secret = deps.secrets.open(receiver.webhookSecretEnc);
  } catch {
    // Most likely the data folder's master.key is not the one the secret was sealed with.
    return { ok: false, error: "the tenant's signing secret cannot be unsealed with this data folder's master.key", loggedUrl };
  }
  const target = await checkSendTarget(receiver.webhookUrl, deps.urlPolicy, deps.lookup, deps.timeoutMs);
  if (!target.ok) {
    // A name that does not resolve is a typo or a DNS problem, not something the policy refused.
    const error = "unresolved" in target ? `${target.reason} (check the host name in the webhook URL, and this machine's DNS)` : `refused by the webhook URL policy: ${target.reason}`;
    return { ok: false, error, loggedUrl };
  }
  // Through a proxy the proxy connects, by name (pinning.ts); the check above still ran.
  const proxy = proxyFor(target.url, deps.proxyEnv);
  let targets: ConnectTarget[];
  try {
    targets = pinnedTargets(target.url, proxy === null ? target.addresses : null);
  } catch (error) {
    return { ok: false, error: `refused by the webhook URL policy: ${(error as Error).message}`, loggedUrl };
  }
  return {
    ok: true,
    secret,
    targets,
    // The dispatcher's own decision, not fetch's reading of the variables against a URL that may hold
    // a pinned address in place of the name.
    proxy: proxy === null ? false : { url: proxy, respectNoProxy: false },
    loggedUrl: originAndPath(target.url),
  };
}

/** The URL as the attempt log keeps it (origin and path, no query or credentials); null when it does not parse. */
function loggableUrl(raw: string): string | null {
  try {
    return originAndPath(new URL(raw));
  } catch {
    return null;
  }
}

/**
 * One signed POST of a claimed row. Never throws: every failure becomes the attempt's error. The
 * attempt starts before the receiver is ready, so its startedAt and durationMs include the claim's
 * shared DNS lookup, as when each delivery resolved the name itself. The timeout is the whole
 * attempt's, that lookup included: the POST gets what the lookup left of it. Timed apart, a slow
 * resolver and a slow receiver made one attempt last twice the setting, which the stop's grace
 * period and a service manager's stop timeout are sized against.
 */
export async function sendDelivery(
  row: ClaimedRow,
  preparing: Promise<PreparedReceiver>,
  deps: Pick<SendDeps, "timeoutMs" | "fetch" | "now">,
): Promise<AttemptRecord> {
  const startedAt = deps.now();
  const t0 = performance.now();
  const receiver = await preparing;
  const done = (statusCode: number | null, error: string | null, url: string | null): AttemptRecord => ({
    startedAt,
    durationMs: performance.now() - t0,
    statusCode,
    error,
    url,
  });

  if (!receiver.ok) return done(null, receiver.error, receiver.loggedUrl);
  const { secret, targets, proxy, loggedUrl } = receiver;

  const timestamp = Math.floor(deps.now().getTime() / 1000);
  // Spelled as in the spec. Header names are case-insensitive, but some receivers (or the logs and
  // proxies in front of them) compare them byte for byte. Bun's fetch sends a plain object's names
  // as given (test/webhooks/header-case.test.ts reads the bytes on the wire).
  const headers = {
    "Content-Type": "application/json",
    "User-Agent": WEBHOOK_USER_AGENT,
    "X-AML-Event": row.event,
    "X-AML-Delivery": row.id,
    "X-AML-Attempt": String(row.attempts),
    "X-AML-Timestamp": String(timestamp),
    "X-AML-Signature": signWebhook(secret, timestamp, row.payload),
  };
  // Not AbortSignal.timeout(): its timer and signal live for the whole timeout however soon the
  // receiver answers, and the signal holds the finished fetch's abort listeners until it fires. At
  // 1,000 deliveries/s that kept some 5,000 of each alive at any moment, so they outlived the young
  // generation's collections into the old one, whose full collections stall the server
  // (docs/benchmark-log.md, sixth stop), and each timer fired later to abort nothing. This one is
  // cleared as soon as the attempt ends.
  const left = deps.timeoutMs - (performance.now() - t0);
  if (left <= 0) return done(null, `no answer within ${deps.timeoutMs} ms (resolving the receiver's address used all of it)`, loggedUrl);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), left);
  try {
    const response = await postToFirstReachable(targetsForAttempt(targets, row.attempts), (target) =>
      deps.fetch(target.input, {
        method: "POST",
        headers: target.host === null ? headers : { ...headers, Host: target.host },
        body: row.payload,
        // A redirect could point the appliance at an address the URL policy refuses; it counts as a failure.
        redirect: "manual",
        signal: abort.signal,
        proxy,
        ...(target.serverName === null ? {} : { tls: { serverName: target.serverName } }),
      }),
    );
    await response.body?.cancel().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return done(response.status, null, loggedUrl);
    const redirect = response.status >= 300 && response.status < 400 ? " (redirects are not followed)" : "";
    return done(response.status, `receiver answered HTTP ${response.status}${redirect}`, loggedUrl);
  } catch (error) {
    if (abort.signal.aborted) return done(null, `no answer within ${deps.timeoutMs} ms`, loggedUrl);
    return done(null, `network error: ${error instanceof NotReachedError ? error.message : networkErrorText(error)}`, loggedUrl);
  } finally {
    clearTimeout(timer);
  }
}
