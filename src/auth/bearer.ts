/** Verifies a bearer JWT; implemented by the OIDC relying party (src/auth/oidc.ts). */
export interface BearerVerifier {
  verify(token: string): Promise<{ subject: string; roles: string[]; tenantId: string | null; tenantClaimIssue?: string }>;
}
