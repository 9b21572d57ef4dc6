import { type ClaimPath, ClaimPathError, parseClaimPath } from "./claims";
import { OidcConfigError } from "./oidc-errors";
import type { FetchLike, KeySetEvent } from "./oidc-keys";

/** Asymmetric JWS algorithms only: a symmetric alg would let anyone holding the public key sign. */
export const ASYMMETRIC_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
] as const;

export type OidcConfig = {
  /** Exactly as the IdP's discovery document states it (mind a trailing slash, e.g. Auth0's). */
  issuer: string;
  /** Expected `aud`; default "aml-api". */
  audience?: string;
  /** Tolerance for exp/nbf/iat; default 30. */
  clockSkewSeconds?: number;
  /** Claim paths (see claims.ts for the syntax); defaults "roles", "tenant_id", "sub". */
  rolesClaim?: string;
  tenantClaim?: string;
  subjectClaim?: string;
  /** Subset of ASYMMETRIC_ALGORITHMS; default all of them. */
  allowedAlgorithms?: readonly string[];
  /** At most one JWKS refetch per interval when a token names an unknown kid; default 30 000. */
  jwksRefreshMinIntervalMs?: number;
  /** Key set is refetched when older than this, so revoked keys disappear; default 600 000. */
  jwksMaxAgeMs?: number;
  /** Timeout of each discovery/JWKS request; default 5 000. */
  fetchTimeoutMs?: number;
  /** Injectable fetch (tests count requests with it); default the global fetch. */
  fetch?: FetchLike;
  /** Epoch milliseconds; injectable for tests. */
  now?: () => number;
  /** Key-set refreshes and failures, for logging. */
  onKeySetEvent?: (event: KeySetEvent) => void;
};

export type ResolvedOidcConfig = {
  readonly issuer: string;
  readonly audience: string;
  readonly clockSkewSeconds: number;
  readonly rolesPath: ClaimPath;
  readonly tenantPath: ClaimPath;
  readonly subjectPath: ClaimPath;
  readonly allowedAlgorithms: ReadonlySet<string>;
  readonly jwksRefreshMinIntervalMs: number;
  readonly jwksMaxAgeMs: number;
  readonly fetchTimeoutMs: number;
  readonly fetch: FetchLike;
  readonly now: () => number;
  readonly onKeySetEvent: ((event: KeySetEvent) => void) | undefined;
};

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v < 0) throw new OidcConfigError(`${name} must be a non-negative number`);
  return v;
}

function claimPath(name: string, value: string | undefined, fallback: string): ClaimPath {
  try {
    return parseClaimPath(value ?? fallback);
  } catch (error) {
    if (error instanceof ClaimPathError) throw new OidcConfigError(`${name}: ${error.message}`);
    throw error;
  }
}

export function resolveOidcConfig(config: OidcConfig): ResolvedOidcConfig {
  if (!URL.canParse(config.issuer) || !/^https?:$/.test(new URL(config.issuer).protocol)) {
    throw new OidcConfigError("issuer must be an absolute http(s) URL");
  }
  const algorithms = config.allowedAlgorithms ?? ASYMMETRIC_ALGORITHMS;
  const asymmetric: ReadonlySet<string> = new Set(ASYMMETRIC_ALGORITHMS);
  const refused = algorithms.filter((alg) => !asymmetric.has(alg));
  if (refused.length > 0 || algorithms.length === 0) {
    throw new OidcConfigError(`allowedAlgorithms must be a non-empty subset of ${ASYMMETRIC_ALGORITHMS.join(", ")}`);
  }
  const audience = config.audience ?? "aml-api";
  if (audience.length === 0) throw new OidcConfigError("audience must not be empty");
  return Object.freeze({
    issuer: config.issuer,
    audience,
    clockSkewSeconds: nonNegative("clockSkewSeconds", config.clockSkewSeconds, 30),
    rolesPath: claimPath("rolesClaim", config.rolesClaim, "roles"),
    tenantPath: claimPath("tenantClaim", config.tenantClaim, "tenant_id"),
    subjectPath: claimPath("subjectClaim", config.subjectClaim, "sub"),
    allowedAlgorithms: new Set(algorithms),
    jwksRefreshMinIntervalMs: nonNegative("jwksRefreshMinIntervalMs", config.jwksRefreshMinIntervalMs, 30_000),
    jwksMaxAgeMs: nonNegative("jwksMaxAgeMs", config.jwksMaxAgeMs, 600_000),
    fetchTimeoutMs: nonNegative("fetchTimeoutMs", config.fetchTimeoutMs, 5_000),
    fetch: config.fetch ?? fetch,
    now: config.now ?? Date.now,
    onKeySetEvent: config.onKeySetEvent,
  });
}
