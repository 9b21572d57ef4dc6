import type { Config } from "@/config";
import { ServiceError } from "@/errors";
import { oncePer } from "@/lib/once-per";
import type { Db } from "@/storage/db";

/**
 * The per-tenant screening rate limit (config `rateLimit`, off by default). The monthly quota caps
 * how much a tenant screens; this caps how fast, so that one tenant's runaway script cannot take the
 * appliance's one matching thread from the others. A token bucket per tenant: it holds up to `burst`
 * screens and refills at `screensPerSecond`; each screen a request would make takes one token when the
 * request is admitted (check and rescreen 1, bulk one per valid row), and a request that finds too few
 * is refused whole, before any matching, with 429 RATE_LIMITED and Retry-After.
 *
 * Not limited: reads, /v1/usage, idempotent replays (they screen nothing), and the appliance's own
 * background screening (monitoring re-screens, batch rows), which it paces itself.
 *
 * The buckets live in the server's memory: a restart refills them, which can only admit one burst more.
 */
export interface RateLimit {
  screensPerSecond: number;
  /** Most screens admitted at once from a full bucket. */
  burst: number;
}

/** A tenant's bucket: tokens held at the monotonic time `atMs` (performance.now()). */
export interface Bucket {
  tokens: number;
  atMs: number;
}

export type Admission = { admitted: true } | { admitted: false; available: number; waitMs: number | null };

/** What a default burst must admit: a full bulk (MAX_BULK_ROWS of screening/bulk.ts; a unit test holds the two equal). */
const DEFAULT_MIN_BURST = 1_000;

/** The configured limit, or null when rate limiting is off. Without `burst`, a full 1,000-row bulk always fits in it. */
export function rateLimitOf(config: Pick<Config, "rateLimit">): RateLimit | null {
  const { screensPerSecond, burst } = config.rateLimit;
  if (screensPerSecond === null) return null;
  return { screensPerSecond, burst: burst ?? Math.max(DEFAULT_MIN_BURST, Math.ceil(screensPerSecond)) };
}

/**
 * Pure: refills `bucket` up to `nowMs` and takes `count` tokens if it holds them (mutating it).
 * Refused: how many tokens it holds now, and how long until it holds `count`, or null when `count`
 * is more than the burst and it never will.
 */
export function takeTokens(bucket: Bucket, limit: RateLimit, count: number, nowMs: number): Admission {
  const elapsed = Math.max(0, nowMs - bucket.atMs);
  bucket.tokens = Math.min(limit.burst, bucket.tokens + (elapsed * limit.screensPerSecond) / 1000);
  bucket.atMs = Math.max(bucket.atMs, nowMs);
  if (bucket.tokens >= count) {
    bucket.tokens -= count;
    return { admitted: true };
  }
  const waitMs = count > limit.burst ? null : ((count - bucket.tokens) * 1000) / limit.screensPerSecond;
  return { admitted: false, available: Math.floor(bucket.tokens), waitMs };
}

/** The buckets of one server (one per database connection, as the quota's memory), by tenant. */
const buckets = oncePer((_db: Db) => new Map<string, Bucket>());

/**
 * Admits `count` screens for the tenant or throws 429 RATE_LIMITED; a no-op when rate limiting is off.
 * Called after validation, the idempotent-replay lookup and the quota check, right before matching.
 */
export function admitScreens(deps: { db: Db; config: Pick<Config, "rateLimit"> }, tenantId: string, count: number, nowMs = performance.now()): void {
  const limit = rateLimitOf(deps.config);
  if (limit === null) return;
  const tenants = buckets(deps.db);
  let bucket = tenants.get(tenantId);
  if (!bucket) {
    bucket = { tokens: limit.burst, atMs: nowMs };
    tenants.set(tenantId, bucket);
  }
  const admission = takeTokens(bucket, limit, count, nowMs);
  if (admission.admitted) return;
  throw rateLimited(limit, count, admission);
}

function rateLimited(limit: RateLimit, count: number, refused: Extract<Admission, { admitted: false }>): ServiceError {
  const { screensPerSecond, burst } = limit;
  const rate = `${formatRate(screensPerSecond)} ${screensPerSecond === 1 ? "screen" : "screens"} per second, in bursts of at most ${burst}`;
  const used = burst - refused.available;
  const reads = "Reads and /v1/usage are not rate-limited.";
  const rateLimit = { screensPerSecond, burst, available: refused.available, needed: count };
  if (refused.waitMs === null) {
    return new ServiceError(
      "RATE_LIMITED",
      `This request needs ${count} screens, more than the tenant's rate limit admits at once (${rate}; one screen per valid row). Nothing was screened or charged: split it into requests of at most ${burst} valid rows. ${reads}`,
      { extensions: { rateLimit } },
    );
  }
  const retryAfter = Math.max(1, Math.ceil(refused.waitMs / 1000));
  return new ServiceError(
    "RATE_LIMITED",
    `Screening rate limit reached: used ${used} of the limit of ${burst} screens that this tenant may send at once (${rate}); this request needs ${count}, ${refused.available} ${refused.available === 1 ? "is" : "are"} available. Nothing was screened or charged: retry after ${retryAfter} s. ${reads}`,
    { extensions: { rateLimit }, headers: { "retry-after": String(retryAfter) } },
  );
}

const formatRate = (n: number): string => (Number.isInteger(n) ? String(n) : String(Number(n.toFixed(3))));
