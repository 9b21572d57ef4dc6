import type { AnyElysia } from "elysia";
import type { BearerVerifier } from "@/auth/bearer";
import type { AppContext } from "@/context";
import type { LookupFn } from "@/webhooks/send-target";

export interface ReadinessCheck {
  name: string;
  ready: boolean;
  detail: string;
}

/** What /readyz reports; each subsystem contributes a check (storage, watchlists, ...). */
export interface Readiness {
  checks(): ReadinessCheck[];
}

/** Everything the HTTP layer needs; later capabilities add their own route groups through extraRoutes. */
export interface HttpDeps extends AppContext {
  readiness: Readiness;
  /** Null when no OIDC issuer is configured: bearer JWTs are then refused with 401. */
  bearer: BearerVerifier | null;
  extraRoutes?: ReadonlyArray<(deps: HttpDeps) => AnyElysia>;
  /**
   * How onboarding and PUT /v1/tenants/{id}/webhook resolve a receiver's host name (checkReceiverUrl).
   * Absent: the system resolver. Tests inject one so the private-address refusal runs on any host.
   */
  receiverLookup?: LookupFn;
}
