/** Roles a credential can carry (spec, Authentication). */
export const ROLES = ["admin", "compliance_analyst", "auditor"] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Roles an API key may carry: keys are tenant credentials, never admin. */
export const API_KEY_ROLES = ["compliance_analyst", "auditor"] as const;
export type ApiKeyRole = (typeof API_KEY_ROLES)[number];

export type Policy = "Screening.Read" | "Screening.Write" | "Admin";

/** The spec's policy table. */
export const POLICY_ROLES: Record<Policy, readonly Role[]> = {
  "Screening.Read": ["compliance_analyst", "admin", "auditor"],
  "Screening.Write": ["compliance_analyst", "admin"],
  Admin: ["admin"],
};

export function satisfies(roles: readonly string[], policy: Policy): boolean {
  return POLICY_ROLES[policy].some((role) => roles.includes(role));
}
