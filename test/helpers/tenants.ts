import type { AppContext } from "@/context";
import { type CreatedTenant, type CreateTenantOptions, createTenant } from "@/tenants/create";

let counter = 0;

/** A fresh tenant with a unique slug; tests never share seeded tenants. */
export function makeTenant(ctx: AppContext, overrides: Record<string, unknown> = {}, options: CreateTenantOptions = {}): CreatedTenant {
  counter++;
  return createTenant(
    ctx,
    {
      name: `Test Bank ${counter}`,
      slug: `test-bank-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}`,
      contactEmail: `compliance${counter}@bank.example`,
      plan: "enterprise",
      enabledLists: ["OFAC", "EU", "UK", "UN", "WIKIDATA"],
      ...overrides,
    },
    { actor: { type: "cli", id: "test" } },
    options,
  );
}
