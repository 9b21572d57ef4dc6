import type { Config } from "@/config";
import { ServiceError } from "@/errors";
import { oncePer } from "@/lib/once-per";
import { MAX_BULK_ROWS } from "@/screening/subject";
import type { Db } from "@/storage/db";

/**
 * The per-tenant screening rate limit (config `rateLimit`, off by default). The monthly quota caps
 * how much a tenant screens; this caps how fast, so that one tenant's runaway script cannot take the
 * appliance's one matching thread from the others. A token bucket per tenant: it holds up to `burst`
 * screens and refills at `screensPerSecond`; each screen a request would make takes one token when the
 * request is admitted (check and rescreen 1, bulk one per valid row), and a request that finds too few
 * is refused whole, before any matching, with 429 RATE_LIMITED and Retry-After.
 *
 * Not limited: reads, /v1/usage, admin routes and the replay of a completed Idempotency-Key (it
 * screens nothing). Tokens of a request that fails after admission (its commit refused for quota by
 * a concurrent request, say) are given back: only screens that happen are counted.
 *
 * The buckets live in the server's memory: a restart refills them, which can only admit one burst more.
 */
interface RateLimit {
  screensPerSecond: number;
  /** Most screens admitted at once from a full bucket. */
  burst: number;
}

/** A tenant's bucket: tokens held at the monotonic time `atMs` (performance.now()). */
export interface Bucket {
  tokens: number;
  atMs: number;
}

type Admission = { admitted: true } | { admitted: false; available: number; waitMs: number | null };

/** The configured limit, or null when rate limiting is off. Without `burst`, a full 1,000-row bulk always fits in it. */
export function rateLimitOf(config: Pick<Config, "rateLimit">): RateLimit | null {
  const { screensPerSecond, burst } = config.rateLimit;
  if (screensPerSecond === null) return null;
  return { screensPerSecond, burst: burst ?? Math.max(MAX_BULK_ROWS, Math.ceil(screensPerSecond)) };
}

/**
 * No I/O: refills `bucket` up to `nowMs` and takes `count` tokens if it holds them (mutating it).
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

/** The limit of a server's settings, worked out once: the settings never change while it runs. */
const limitOf = oncePer((settings: Config["rateLimit"]) => rateLimitOf({ rateLimit: settings }));

/** The buckets of one server (one per database connection, as the quota's memory), by tenant. */
const buckets = oncePer((_db: Db) => new Map<string, Bucket>());

const NOTHING_TO_GIVE_BACK = (_unused: number): void => undefined;

type RateLimitDeps = { db: Db; config: Pick<Config, "rateLimit"> };

function bucketOf(db: Db, limit: RateLimit, tenantId: string, nowMs: number): Bucket {
  const tenants = buckets(db);
  let bucket = tenants.get(tenantId);
  if (!bucket) {
    bucket = { tokens: limit.burst, atMs: nowMs };
    tenants.set(tenantId, bucket);
  }
  return bucket;
}

/**
 * Runs `screen` (matching and its commit) once `count` screens are admitted for the tenant, or throws
 * 429 RATE_LIMITED without running it; with rate limiting off it just runs it. Called after
 * validation, the idempotent-replay lookup, the quota check and the snapshot lookup, so that a
 * request refused for any of those takes nothing. A `screen` that throws gives its tokens back.
 */
export async function withAdmittedScreens<T>(
  deps: RateLimitDeps,
  tenantId: string,
  count: number,
  screen: (giveBack: (unused: number) => void) => Promise<T>,
): Promise<T> {
  const limit = limitOf(deps.config.rateLimit);
  if (limit === null) return screen(NOTHING_TO_GIVE_BACK);
  const nowMs = performance.now();
  const bucket = bucketOf(deps.db, limit, tenantId, nowMs);
  const admission = takeTokens(bucket, limit, count, nowMs);
  if (!admission.admitted) throw rateLimited(limit, count, admission);
  let held = count;
  // A bulk row whose matching failed is not a screen: the verb gives its token back.
  const giveBack = (unused: number) => {
    const n = Math.min(held, Math.max(0, unused));
    held -= n;
    bucket.tokens = Math.min(limit.burst, bucket.tokens + n);
  };
  try {
    return await screen(giveBack);
  } catch (error) {
    giveBack(held);
    throw error;
  }
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
      `This request needs ${count} screens, more than the tenant's rate limit admits at once (${rate}; one screen per valid row; used ${used} of the limit of ${burst}). Nothing was screened or charged: split it into requests of at most ${burst} valid rows. ${reads}`,
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

const formatRate = (n: number): string => String(Number(n.toFixed(3)));
