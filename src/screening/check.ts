import { z } from "zod";
import type { CallMeta } from "@/context";
import { parseInput } from "@/lib/validate";
import { RiskProfileOverrides } from "@/matching/options";
import { precheckOneScreen } from "@/usage/quota";
import { screenOne } from "./commit";
import type { ScreeningDeps, ScreenOutcome } from "./deps";
import { findReplay, idempotencyClaim } from "./idempotency";
import { optionsForTenant } from "./options";
import { normaliseSubject, refuseNameInReference, SUBJECT_SHAPE } from "./subject";

/** POST /v1/screenings/check body: the subject's fields at the top level, per-request options under `options`. */
export const CheckInput = z
  .object({
    ...SUBJECT_SHAPE,
    options: RiskProfileOverrides.nullish().describe(
      "Per-request overrides of the tenant's risk profile; absent or null fields keep the profile's value. Ranges as in the risk profile. A list in options.lists that the tenant is not enabled for is 400 (options.lists), not dropped.",
    ),
  })
  .strict()
  .superRefine(refuseNameInReference)
  .describe("A subject to screen, with optional per-request options. Unknown fields are rejected.");
export type CheckInput = z.input<typeof CheckInput>;

/**
 * The overrides as the idempotency hash compares them: an absent field and a null one both keep the
 * profile's value, and lists and PEP tiers are sets, so a retry that rebuilds the body with
 * `"threshold": null`, without `options`, or with its lists in another order is the same request (as
 * "Russia" and "RU" are the same subject), and replays instead of being refused as a different one.
 */
function requestedOptions(overrides: RiskProfileOverrides): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(overrides)) {
    if (value === null || value === undefined) continue;
    out[name] = name === "lists" || name === "pepTiers" ? [...new Set(value as string[])].sort() : value;
  }
  return out;
}

export interface CheckArgs {
  tenantId: string;
  input: unknown;
  idempotencyKey: string | null;
  meta: CallMeta;
}

/**
 * Single screen. An Idempotency-Key already seen with the same body returns the original screening
 * (uncharged, no new event). The quota is pre-checked so an over-quota call does no matching, and
 * checked again, authoritatively, in the commit transaction, which concurrent screens share (group
 * commit); the outcome resolves once that transaction committed.
 */
export async function checkScreening(deps: ScreeningDeps, args: CheckArgs): Promise<ScreenOutcome> {
  const parsed = parseInput(CheckInput, args.input, "Screening request");
  const subject = normaliseSubject(parsed);
  const overrides = parsed.options ?? {};
  const claim = idempotencyClaim(args.idempotencyKey, "check", () => ({ subject, options: requestedOptions(overrides) }));
  const now = deps.clock.now();
  if (claim) {
    const original = findReplay(deps.db, args.tenantId, claim, now);
    if (original) return { record: original, replayed: true };
  }
  // Options first: a request the tenant's profile refuses is a 400 whatever the quota, as a
  // malformed body is, so a caller at the cap learns what to fix before it learns to wait.
  const options = optionsForTenant(deps.db, args.tenantId, overrides);
  precheckOneScreen(deps.db, args.tenantId, now);
  return screenOne(deps, { ...args, claim, now }, {
    subject,
    options,
    origin: "check",
    rescreenOf: null,
  });
}
