import { Elysia } from "elysia";
import type { MatchIndex } from "@/matching/index";
import { profileRoutes } from "@/profiles/routes";
import type { ServerExtension } from "@/server";
import type { WatchlistExtension } from "@/watchlists/extension";
import type { LoadedLists } from "@/watchlists/runtime";
import { screeningRoutes } from "./routes";

export interface ScreeningExtensionOptions {
  /** Called after a commit queued webhook events (the webhook extension's wake). */
  announce?: () => void;
}

/** The screening and risk-profile routes for startServer, reading the lists the watchlist extension serves. */
export function screeningExtension(watchlists: WatchlistExtension<MatchIndex>, options: ScreeningExtensionOptions = {}): ServerExtension {
  const runtime = () => {
    try {
      return watchlists.runtime();
    } catch {
      // The runtime exists once the watchlist extension has started; until then screens answer 503.
      return null;
    }
  };
  const lists = (): LoadedLists<MatchIndex> | null => runtime()?.current() ?? null;
  const whyNoLists = (): string | null => runtime()?.notServingReason() ?? null;
  const announce = options.announce ?? (() => undefined);
  return {
    readiness: () => {
      const loaded = lists();
      return { name: "screening", ready: loaded !== null, detail: loaded ? `screening against snapshot ${loaded.snapshot.id}` : (whyNoLists() ?? "waiting for a watchlist snapshot") };
    },
    routes: (deps) => new Elysia().use(screeningRoutes(deps, { ...deps, lists, announce, whyNoLists })).use(profileRoutes(deps)),
  };
}
