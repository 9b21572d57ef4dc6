import type { Config } from "@/config";
import { startIndex } from "@/matching/index";
import { screeningExtension } from "@/screening/extension";
import type { ServerExtension } from "@/server";
import { demoListFiles } from "@/watchlists/demo/index";
import { watchlistExtension } from "@/watchlists/extension";
import { webhookExtension } from "@/webhooks/extension";

/**
 * The capabilities `aml serve` runs beside the core routes: the watchlists, the webhook dispatcher and
 * the screening routes, which wake the dispatcher after each commit. With `demo` (`aml serve --demo`)
 * a data folder that never imported a list is seeded with the FICTIONAL demo list, so the appliance
 * screens out of the box; without it such a folder serves nothing (503) until `aml lists import`.
 */
export async function serverExtensions(_config: Config, options: { demo?: boolean } = {}): Promise<ServerExtension[]> {
  const watchlists = watchlistExtension(startIndex, options.demo === true ? { demoFiles: demoListFiles } : {});
  const webhooks = webhookExtension();
  return [watchlists, webhooks, screeningExtension(watchlists, { announce: () => webhooks.wake() })];
}
