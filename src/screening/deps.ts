import type { AppContext } from "@/context";
import { ServiceError } from "@/errors";
import type { MatchIndex } from "@/matching/index";
import type { LoadedLists } from "@/watchlists/runtime";
import type { ScreeningRecord } from "./types";

/** What the screening verbs need beyond the app context: the serving lists and a dispatcher nudge. */
export interface ScreeningDeps extends AppContext {
  /** The snapshot being served, or null while none is loaded. */
  lists(): LoadedLists<MatchIndex> | null;
  /** Called after a commit that queued webhook events, so they go out without waiting for a poll. */
  announce(): void;
  /** Why lists() is null (nothing imported, a failed load, still loading), for the 503's detail. */
  whyNoLists?(): string | null;
}

export function requireLists(deps: ScreeningDeps): LoadedLists<MatchIndex> {
  const lists = deps.lists();
  if (!lists) throw new ServiceError("NOT_READY", deps.whyNoLists?.() ?? "No watchlist snapshot is loaded yet; retry shortly.");
  return lists;
}

/** What a single-screen verb returns: the screening, and whether it is an idempotent replay. */
export interface ScreenOutcome {
  record: ScreeningRecord;
  replayed: boolean;
}
