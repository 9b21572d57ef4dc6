import type { Config } from "@/config";
import { startIndex } from "@/matching/index";
import { screeningExtension } from "@/screening/extension";
import type { ServerExtension } from "@/server";
import { demoListFiles } from "@/watchlists/demo/index";
import { watchlistExtension } from "@/watchlists/extension";
import { webhookExtension } from "@/webhooks/extension";

/**
 * The capabilities `aml serve` runs beside the core routes: the watchlists (seeded with the FICTIONAL
 * demo list on a first start, so the appliance screens out of the box), the webhook dispatcher and
 * the screening routes, which wake the dispatcher after each commit.
 */
export async function serverExtensions(_config: Config): Promise<ServerExtension[]> {
  const watchlists = watchlistExtension(startIndex, { demoFiles: demoListFiles });
  const webhooks = webhookExtension();
  return [watchlists, webhooks, screeningExtension(watchlists, { announce: () => webhooks.wake() })];
}
