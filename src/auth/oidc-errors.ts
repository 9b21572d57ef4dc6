import { errors as jose } from "jose";

/**
 * Why a bearer token was refused; the code is for logs. Every reason means 401 to the caller but
 * discovery_failed, where the token was never checked: 503 NOT_READY (http/authenticate.ts).
 */
export type InvalidTokenReason =
  | "expired"
  | "bad_signature"
  | "wrong_issuer"
  | "wrong_audience"
  | "not_yet_valid"
  | "unsupported_alg"
  | "malformed"
  | "unknown_key"
  /** The IdP's discovery document or key set could not be fetched or was invalid: an operator problem. */
  | "discovery_failed";

/**
 * A refused bearer token. `detail` is safe to log: it never contains the token or its signature.
 * The jose error is deliberately not kept as `cause`, since claim errors carry the whole payload.
 */
export class InvalidTokenError extends Error {
  override readonly name = "InvalidTokenError";
  constructor(
    readonly reason: InvalidTokenReason,
    readonly detail: string,
  ) {
    super(`invalid bearer token (${reason}): ${detail}`);
  }
}

/** The IdP's discovery document or JWKS is unreachable or invalid. */
export class OidcDiscoveryError extends Error {
  override readonly name = "OidcDiscoveryError";
}

/** Invalid verifier configuration, raised when the verifier is created so startup fails fast. */
export class OidcConfigError extends Error {
  override readonly name = "OidcConfigError";
}

const CLAIM_REASONS: Record<string, InvalidTokenReason> = {
  iss: "wrong_issuer",
  aud: "wrong_audience",
  nbf: "not_yet_valid",
  iat: "not_yet_valid",
};

export function fromJoseError(error: unknown): InvalidTokenError {
  if (error instanceof InvalidTokenError) return error;
  if (error instanceof OidcDiscoveryError) return new InvalidTokenError("discovery_failed", error.message);
  if (error instanceof jose.JWTExpired) return new InvalidTokenError("expired", error.message);
  if (error instanceof jose.JWTClaimValidationFailed) {
    // A missing required claim is a malformed token, whichever claim it is.
    const reason = error.reason === "missing" ? "malformed" : (CLAIM_REASONS[error.claim] ?? "malformed");
    return new InvalidTokenError(reason, error.message);
  }
  if (error instanceof jose.JWSSignatureVerificationFailed) return new InvalidTokenError("bad_signature", error.message);
  if (error instanceof jose.JOSEAlgNotAllowed || error instanceof jose.JOSENotSupported) {
    return new InvalidTokenError("unsupported_alg", error.message);
  }
  if (error instanceof jose.JWKSNoMatchingKey) return new InvalidTokenError("unknown_key", error.message);
  if (error instanceof jose.JOSEError) return new InvalidTokenError("malformed", `${error.code}: ${error.message}`);
  // Non-jose failures (e.g. WebCrypto rejecting a key) are not the caller's fault to debug; keep the class only.
  return new InvalidTokenError("malformed", error instanceof Error ? error.name : "unknown error");
}
