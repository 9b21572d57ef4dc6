import { looksLikeApiKey } from "@/auth/api-key-format";
import type { Principal } from "@/auth/principal";
import { resolveApiKey } from "@/auth/resolve-api-key";
import { ServiceError } from "@/errors";
import type { HttpDeps } from "./deps";
import { requestState } from "./request-state";

const unauthenticated = (detail: string) => new ServiceError("UNAUTHENTICATED", detail);

/**
 * The request's caller, as the guard acts for it: authenticated once the body is in. A caller found
 * before a large body was read (principalBeforeBody) is authenticated again here: an upload can take
 * a minute, and a key revoked (or a token expired) while it arrived must not screen or import with
 * it, just as a tenant suspended meanwhile is refused by the guard's tenant check. The principal
 * found first stays in the request state when this throws, so the access log still names the
 * credential the 401 was for.
 */
export async function principalOf(deps: HttpDeps, request: Request): Promise<Principal> {
  const state = requestState(request);
  if (state.principal === undefined || state.principalBeforeBody) {
    const principal = await authenticate(deps, request);
    state.principal = principal;
    state.principalBeforeBody = false;
  }
  return state.principal;
}

/**
 * The caller of a request whose body has not been read yet (app.ts onParse, for a body that may be
 * over maxJsonBodyBytes): kept in the request state for the access log, and checked again by
 * principalOf once the body is in.
 */
export async function principalBeforeBody(deps: HttpDeps, request: Request): Promise<Principal> {
  const state = requestState(request);
  state.principal = await authenticate(deps, request);
  state.principalBeforeBody = true;
  return state.principal;
}

/**
 * Reads the credential from X-Api-Key or Authorization: Bearer. An API key works in either header;
 * any other bearer value is treated as a JWT and goes to the OIDC verifier. Both at once is refused:
 * two credentials may name two tenants or two roles, and picking one silently would act for a caller
 * the client did not mean (or accept a request whose other credential is garbage). An Authorization
 * of another scheme (Basic, for a proxy in front) does not count as a credential here.
 */
export async function authenticate(deps: HttpDeps, request: Request): Promise<Principal> {
  const apiKey = request.headers.get("x-api-key");
  const authorization = request.headers.get("authorization");
  if (apiKey !== null) {
    if (authorization !== null && /^\s*Bearer(\s|$)/i.test(authorization)) {
      throw unauthenticated("Two credentials were sent, X-Api-Key and Authorization: Bearer; send exactly one.");
    }
    return apiKeyPrincipal(deps, apiKey.trim());
  }
  if (authorization === null) {
    throw unauthenticated("No credential: send an API key in X-Api-Key or a token in Authorization: Bearer.");
  }
  const match = authorization.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match?.[1]) throw unauthenticated("The Authorization header must be 'Bearer <token>'.");
  const token = match[1];
  if (looksLikeApiKey(token)) return apiKeyPrincipal(deps, token);
  if (!deps.bearer) throw unauthenticated("Bearer tokens are not accepted: no OpenID issuer is configured on this appliance.");
  try {
    const verified = await deps.bearer.verify(token);
    return {
      credential: "bearer",
      actor: { type: "oidc", id: verified.subject },
      roles: verified.roles,
      tenantId: verified.tenantId,
      ...(verified.tenantClaimIssue === undefined ? {} : { tenantClaimIssue: verified.tenantClaimIssue }),
    };
  } catch (error) {
    const reason = (error as { reason?: string }).reason ?? "invalid";
    const detail = (error as { detail?: string }).detail;
    // The verifier never puts the token in reason/detail, so both are safe to log.
    // The request's correlation id ties this line to its access-log line.
    const { correlationId } = requestState(request);
    if (reason === "discovery_failed") {
      deps.log.warn({ correlationId, reason, detail }, "bearer token not checked: identity provider unreachable");
      // Not the caller's credential at fault but the appliance's view of its IdP (unreachable, or an
      // issuer that does not match): a 401 would tell the client to throw a good token away.
      throw new ServiceError(
        "NOT_READY",
        "The identity provider's signing keys could not be loaded, so the bearer token could not be checked; retry shortly. API keys are not affected.",
      );
    }
    deps.log.info({ correlationId, reason, detail }, "bearer token rejected");
    throw unauthenticated("The bearer token is invalid, expired or not meant for this service.");
  }
}

function apiKeyPrincipal(deps: HttpDeps, candidate: string): Principal {
  const principal = resolveApiKey(deps.db, candidate);
  if (!principal) throw unauthenticated("The API key is malformed, unknown or revoked.");
  return principal;
}
