import type { Actor } from "@/context";

/** A caller after authentication: who it is, its roles, and the tenant its credential carries. */
export interface Principal {
  credential: "api_key" | "bearer";
  actor: Actor;
  roles: string[];
  /** Null when a bearer token has no tenant claim (admins of the appliance). */
  tenantId: string | null;
  /** Set when a bearer token's tenant claim is there but names no tenant (a number, a list): why. */
  tenantClaimIssue?: string;
}

/** A principal on a tenant-scoped route: the tenant is resolved and active. */
export interface TenantCaller extends Principal {
  tenantId: string;
}
