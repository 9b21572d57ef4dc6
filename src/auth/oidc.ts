// Bearer-token verification for the OIDC relying party: the service stores no users; admins and
// tenant users arrive with access tokens from the customer's IdP. No HTTP framework types here.
import { decodeProtectedHeader, errors as jose, type JWTPayload, type JWTVerifyOptions, jwtVerify } from "jose";
import { hasControlCharacter } from "@/lib/control-characters";
import { type ClaimPath, claimAsString, claimAsStringList, isSpaceDelimitedClaim, readClaim } from "./claims";
import { type OidcConfig, type ResolvedOidcConfig, resolveOidcConfig } from "./oidc-config";
import { fromJoseError, InvalidTokenError, OidcDiscoveryError } from "./oidc-errors";
import { KeySetCache, type KeySnapshot, type OidcDiscoveryDocument } from "./oidc-keys";

export { ASYMMETRIC_ALGORITHMS, type OidcConfig } from "./oidc-config";
export { InvalidTokenError, type InvalidTokenReason, OidcConfigError, OidcDiscoveryError } from "./oidc-errors";
export type { FetchLike, KeySetEvent, OidcDiscoveryDocument } from "./oidc-keys";

export type VerifiedPrincipal = {
  subject: string;
  roles: string[];
  tenantId: string | null;
  /** Why a tenant claim that is present names no tenant (a number, a list, an object), for the 403 that follows. */
  tenantClaimIssue?: string;
  /** The OAuth client the token was issued to (client_id, else azp, else Entra v1 appid). */
  clientId?: string;
  expiresAt: Date;
  claims: Readonly<JWTPayload>;
};

export type OidcVerifier = {
  /** Resolves the principal or throws InvalidTokenError (401, or 503 for discovery_failed: http/authenticate.ts). */
  verify(token: string): Promise<VerifiedPrincipal>;
  /** The IdP's discovery document; rejects with OidcDiscoveryError while the IdP is unreachable. */
  discovery(): Promise<OidcDiscoveryDocument>;
};

// Generous for Entra tokens with many groups; beyond it, refuse before doing any crypto.
const MAX_TOKEN_LENGTH = 16 * 1024;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * True when `credential` is shaped like a compact JWS (base64url header.payload.signature whose
 * header is JSON with an `alg`), so the auth guard can route it to verify() rather than the API-key
 * lookup. It says nothing about validity; an unsigned (`alg: none`) token still looks like a JWT.
 */
export function looksLikeJwt(credential: string): boolean {
  if (credential.length > MAX_TOKEN_LENGTH || !JWT_SHAPE.test(credential)) return false;
  try {
    return typeof decodeProtectedHeader(credential).alg === "string";
  } catch {
    return false;
  }
}

// What a JWK's `kty` must be for each algorithm family; a kid reused across types is refused.
function keyTypeFor(alg: string): string {
  if (alg.startsWith("RS") || alg.startsWith("PS")) return "RSA";
  if (alg.startsWith("ES")) return "EC";
  return "OKP";
}

function readHeader(token: string, config: ResolvedOidcConfig): { alg: string; kid: string | undefined } {
  if (token.length > MAX_TOKEN_LENGTH) throw new InvalidTokenError("malformed", "token too long");
  if (!JWT_SHAPE.test(token)) throw new InvalidTokenError("malformed", "not a compact JWS");
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw new InvalidTokenError("malformed", "undecodable JOSE header");
  }
  const { alg, kid } = header;
  if (typeof alg !== "string") throw new InvalidTokenError("malformed", "JOSE header without alg");
  // Checked before any key lookup, so `none`/HS* tokens neither verify nor trigger a JWKS refetch.
  if (!config.allowedAlgorithms.has(alg)) throw new InvalidTokenError("unsupported_alg", `alg ${alg} is not allowed`);
  if (kid !== undefined && typeof kid !== "string") throw new InvalidTokenError("malformed", "kid is not a string");
  return { alg, kid };
}

/** Keys from the set that may verify this header: matching kid, kty, and the JWK's own alg if it has one. */
async function candidateKeys(snapshot: KeySnapshot, header: { alg: string; kid: string | undefined }) {
  try {
    return [await snapshot.resolve(header)];
  } catch (error) {
    if (error instanceof jose.JWKSNoMatchingKey) return [];
    if (error instanceof jose.JWKSMultipleMatchingKeys) {
      const keys: CryptoKey[] = [];
      // jose attaches an async iterator over every matching key to this error.
      for await (const key of error as jose.JWKSMultipleMatchingKeys & AsyncIterable<CryptoKey>) keys.push(key);
      return keys;
    }
    throw error;
  }
}

/** The kid exists in the set but no key under it fits this alg: an alg-confusion attempt, not rotation. */
function kidMismatch(snapshot: KeySnapshot, { alg, kid }: { alg: string; kid: string | undefined }): boolean {
  if (kid === undefined) return false;
  const named = snapshot.jwks.keys.filter((k) => k.kid === kid);
  const fits = (k: (typeof named)[number]) =>
    (k.alg === undefined || k.alg === alg) && k.kty === keyTypeFor(alg) && (k.use === undefined || k.use === "sig");
  return named.length > 0 && !named.some(fits);
}

function toPrincipal(payload: JWTPayload, config: ResolvedOidcConfig): VerifiedPrincipal {
  const subject = claimAsString(readClaim(payload, config.subjectPath));
  if (subject === null) throw new InvalidTokenError("malformed", "missing subject claim");
  // The subject is the actor of every audit entry the token writes, shown by the CLI and exported as
  // CSV: an ESC or a line break there would rewrite a terminal or forge a line. No IdP issues one.
  if (hasControlCharacter(subject)) throw new InvalidTokenError("malformed", "subject claim holds a control character");
  const clientId = claimAsString(payload["client_id"] ?? payload["azp"] ?? payload["appid"]);
  const tenantClaim = readClaim(payload, config.tenantPath);
  const tenantId = claimAsString(tenantClaim);
  const tenantClaimIssue = tenantClaim === undefined || tenantId !== null ? null : unusableClaim(config.tenantPath, tenantClaim);
  return {
    subject,
    roles: claimAsStringList(readClaim(payload, config.rolesPath), isSpaceDelimitedClaim(config.rolesPath)),
    tenantId,
    ...(tenantClaimIssue !== null ? { tenantClaimIssue } : {}),
    ...(clientId !== null ? { clientId } : {}),
    // exp is a required claim below, so it is present and numeric here.
    expiresAt: new Date((payload.exp as number) * 1000),
    claims: Object.freeze(payload),
  };
}

/**
 * What an IdP mapper got wrong, said without the value itself (a claim may hold anything): the token
 * is genuine, so it is no 401, but an operator reading "carries no tenant" would look for a missing
 * mapper rather than one that emits the wrong type.
 */
function unusableClaim(path: ClaimPath, value: unknown): string {
  const kind =
    value === null
      ? "null"
      : Array.isArray(value)
        ? `a list of ${value.length} values`
        : typeof value === "string"
          ? "an empty string"
          : typeof value === "object"
            ? "an object"
            : `a ${typeof value}`;
  return `its ${path.join(".")} claim is ${kind}, not one tenant id or slug (a string)`;
}

export function createOidcVerifier(input: OidcConfig): OidcVerifier {
  const config = resolveOidcConfig(input);
  const keys = new KeySetCache({
    issuer: config.issuer,
    fetch: config.fetch,
    now: config.now,
    refreshMinIntervalMs: config.jwksRefreshMinIntervalMs,
    maxAgeMs: config.jwksMaxAgeMs,
    timeoutMs: config.fetchTimeoutMs,
    onEvent: config.onKeySetEvent,
  });

  async function resolveKeys(header: { alg: string; kid: string | undefined }): Promise<CryptoKey[]> {
    const snapshot = await keys.current();
    if (kidMismatch(snapshot, header)) throw new InvalidTokenError("unsupported_alg", "alg does not fit the key named by kid");
    const found = await candidateKeys(snapshot, header);
    if (found.length > 0) return found;
    // Unknown kid: probably a key rotation at the IdP.
    // The IdP unreachable now is no reason to answer 503: the keys in hand were checked, and none is
    // this token's, which is what any made-up kid gets (auth probe: a forged token got 503 NOT_READY).
    const fresh = await keys.refreshForUnknownKey().catch((error: unknown) => {
      if (error instanceof OidcDiscoveryError) throw new InvalidTokenError("unknown_key", "no matching key; the IdP's key set could not be fetched again");
      throw error;
    });
    if (!fresh) throw new InvalidTokenError("unknown_key", "no matching key; JWKS refetch rate-limited");
    const again = await candidateKeys(fresh, header);
    if (again.length === 0) throw new InvalidTokenError("unknown_key", "no matching key in the IdP's key set");
    return again;
  }

  async function verify(token: string): Promise<VerifiedPrincipal> {
    try {
      const header = readHeader(token, config);
      const candidates = await resolveKeys(header);
      const options: JWTVerifyOptions = {
        issuer: config.issuer,
        audience: config.audience,
        algorithms: [header.alg],
        clockTolerance: config.clockSkewSeconds,
        currentDate: new Date(config.now()),
        requiredClaims: ["exp"],
      };
      let lastError: unknown;
      for (const key of candidates) {
        try {
          const { payload } = await jwtVerify(token, key, options);
          refuseIssuedInFuture(payload, config);
          return toPrincipal(payload, config);
        } catch (error) {
          if (!(error instanceof jose.JWSSignatureVerificationFailed)) throw error;
          lastError = error;
        }
      }
      throw lastError;
    } catch (error) {
      throw fromJoseError(error);
    }
  }

  return { verify, discovery: () => keys.discovery() };
}

/**
 * jose checks iat only with maxTokenAge, which would also make iat required, and not every provider
 * sends one. A token that says it was issued later than now (beyond the clock skew) was minted by a
 * provider with a wrong clock (or by one that should not be trusted): refused like an nbf in the future.
 */
function refuseIssuedInFuture(payload: JWTPayload, config: Pick<ResolvedOidcConfig, "clockSkewSeconds" | "now">): void {
  if (typeof payload.iat !== "number") return;
  if (payload.iat > config.now() / 1000 + config.clockSkewSeconds) {
    throw new InvalidTokenError("not_yet_valid", `"iat" ${payload.iat} is later than now (beyond ${config.clockSkewSeconds} s of clock skew)`);
  }
}
