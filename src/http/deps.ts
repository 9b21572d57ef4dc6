import type { AnyElysia } from "elysia";
import type { BearerVerifier } from "@/auth/bearer";
import type { AppContext } from "@/context";

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
}
