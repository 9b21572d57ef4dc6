import type { CallMeta } from "@/context";
import { precheckOneScreen } from "@/usage/quota";
import { commitSingleScreen } from "./commit";
import { requireLists, type ScreeningDeps, type ScreenOutcome } from "./deps";
import { getScreening } from "./get";
import { findReplay, idempotencyClaim } from "./idempotency";
import { runScreening } from "./run";

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
  const claim = idempotencyClaim(args.idempotencyKey, "rescreen", { rescreenOf: original.id });
  const now = deps.clock.now();
  if (claim) {
    const replay = findReplay(deps.db, args.tenantId, claim, now);
    if (replay) return { record: replay, replayed: true };
  }
  precheckOneScreen(deps.db, args.tenantId, now);
  const record = runScreening(
    requireLists(deps),
    {
      subject: original.subject,
      options: original.options,
      origin: "rescreen",
      rescreenOf: original.id,
      correlationId: args.meta.correlationId ?? null,
    },
    now,
  );
  return commitSingleScreen(deps, args.tenantId, record, args.meta, claim);
}
