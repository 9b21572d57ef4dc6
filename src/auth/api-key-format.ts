import { randomBase62, sha256Hex } from "@/lib/hash";

/**
 * API keys look like aml_live_<40 base62 chars> (about 238 bits of entropy). The prefix makes a
 * leaked key recognisable to secret scanners; only sha256(key) and a short lookup prefix are stored.
 */
export const API_KEY_PREFIX = "aml_live_";
const RANDOM_LENGTH = 40;
const LOOKUP_LENGTH = 10;
const API_KEY_RE = /^aml_live_[0-9A-Za-z]{40}$/;

export interface GeneratedKey {
  plaintext: string;
  lookupPrefix: string;
  hash: string;
}

export function generateApiKey(): GeneratedKey {
  const random = randomBase62(RANDOM_LENGTH);
  const plaintext = API_KEY_PREFIX + random;
  return { plaintext, lookupPrefix: random.slice(0, LOOKUP_LENGTH), hash: sha256Hex(plaintext) };
}

/** Checks the shape before the database is touched; returns the lookup prefix or null. */
export function parseApiKey(candidate: string): { lookupPrefix: string; hash: string } | null {
  if (!API_KEY_RE.test(candidate)) return null;
  return { lookupPrefix: candidate.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + LOOKUP_LENGTH), hash: sha256Hex(candidate) };
}

export function looksLikeApiKey(candidate: string): boolean {
  return candidate.startsWith(API_KEY_PREFIX);
}

export const WEBHOOK_SECRET_PREFIX = "whsec_";

export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBase62(40)}`;
}

/** What generateWebhookSecret issues: whsec_ and base62. Anything else is a mistyped or wrong key. */
export const WEBHOOK_SECRET_RE = /^whsec_[0-9A-Za-z]+$/;
