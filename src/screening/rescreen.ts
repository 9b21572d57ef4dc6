import type { CallMeta } from "@/context";
import { ServiceError } from "@/errors";
import { precheckOneScreen } from "@/usage/quota";
import { screenOne } from "./commit";
import type { ScreeningDeps, ScreenOutcome } from "./deps";
import { getScreening } from "./get";
import { findReplay, idempotencyClaim } from "./idempotency";
import { hasNameToken } from "./subject";

export interface RescreenArgs {
  tenantId: string;
  id: string;
  idempotencyKey: string | null;
  meta: CallMeta;
}

/**
 * Screens an earlier screening's subject again, with its ORIGINAL resolved options, against the
 * lists serving now. The result is a new screening linked by rescreenOf; the original is untouched
 * (the database could not change it anyway). Charged like a check: only monitoring is exempt.
 * Committed like a check, in the shared group commit.
 */
export async function rescreenScreening(deps: ScreeningDeps, args: RescreenArgs): Promise<ScreenOutcome> {
  const original = getScreening(deps.db, args.tenantId, args.id);
  const claim = idempotencyClaim(args.idempotencyKey, "rescreen", () => ({ rescreenOf: original.id }));
  const now = deps.clock.now();
  if (claim) {
    const replay = findReplay(deps.db, args.tenantId, claim, now);
    if (replay) return { record: replay, replayed: true };
  }
  const unusable = [original.subject.fullName, ...original.subject.aliases].find((name) => !hasNameToken(name));
  if (unusable !== undefined) {
    // Only a screening stored before names were checked can hold one; a new Clear for it would mean nothing.
    throw new ServiceError(
      "CONFLICT",
      `Screening ${original.id} was of a name with no letter or digit to match; screen a corrected subject with POST /v1/screenings/check instead.`,
    );
  }
  precheckOneScreen(deps.db, args.tenantId, now);
  return screenOne(deps, { ...args, claim, now }, {
    subject: original.subject,
    options: original.options,
    origin: "rescreen",
    rescreenOf: original.id,
  });
}
