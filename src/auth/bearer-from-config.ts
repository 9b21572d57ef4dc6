import type { Config } from "@/config";
import type { Logger } from "@/lib/logger";
import type { BearerVerifier } from "./bearer";
import { createOidcVerifier } from "./oidc";

/** The OIDC relying party from config, or null when no issuer is set (bearer JWTs are then refused). */
export function bearerFromConfig(config: Config, log: Logger): BearerVerifier | null {
  const oidc = config.oidc;
  if (!oidc.issuer) return null;
  return createOidcVerifier({
    issuer: oidc.issuer,
    audience: oidc.audience,
    rolesClaim: oidc.rolesClaim,
    tenantClaim: oidc.tenantClaim,
    subjectClaim: oidc.subjectClaim,
    clockSkewSeconds: oidc.clockSkewSeconds,
    jwksRefreshMinIntervalMs: oidc.jwksRefreshMinIntervalMs,
    onKeySetEvent: (event) => log.info({ keySet: event }, "oidc key set event"),
  });
}
