import type { Config } from "@/config";
import type { ServerExtension } from "@/server";

/** The capabilities `aml serve` runs beside the core routes; each issue's module adds itself here. */
export async function serverExtensions(_config: Config): Promise<ServerExtension[]> {
  return [];
}
