import { constantTimeEqual } from "@/lib/hash";
import type { Db } from "@/storage/db";
import { cachedSetting } from "@/storage/row-cache";
import { parseApiKey } from "./api-key-format";
import type { Principal } from "./principal";

interface KeyCandidate {
  id: string;
  tenant_id: string;
  role: string;
  key_hash: string;
  revoked_at: string | null;
}

/**
 * Resolves an API key to its principal, or null (unknown, malformed or revoked: all 401).
 * The key rows come through the connection's row cache, which drops them whenever the database may
 * have changed, so a key issued or revoked by the CLI in another process takes effect on the next
 * request. Only rows are cached (hashes, as stored), never the key presented, and the comparison
 * below runs on every request.
 */
export function resolveApiKey(db: Db, candidate: string): Principal | null {
  const parsed = parseApiKey(candidate);
  if (!parsed) return null;
  const rows = cachedSetting(db.sqlite, `api-key:${parsed.lookupPrefix}`, () =>
    db.sqlite
      .query<KeyCandidate, [string]>("SELECT id, tenant_id, role, key_hash, revoked_at FROM api_keys WHERE lookup_prefix = ?")
      .all(parsed.lookupPrefix),
    // Only prefixes that exist: a client inventing keys must not fill the cache.
    (found) => found.length > 0,
  );
  let match: KeyCandidate | null = null;
  for (const row of rows) {
    if (constantTimeEqual(row.key_hash, parsed.hash)) match = row;
  }
  if (!match || match.revoked_at !== null) return null;
  return {
    credential: "api_key",
    actor: { type: "api_key", id: match.id },
    roles: [match.role],
    tenantId: match.tenant_id,
  };
}
