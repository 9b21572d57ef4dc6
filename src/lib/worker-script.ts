/**
 * The URL of a worker's script, given its path under src/ (e.g. "storage/checkpoint-worker.ts").
 * In the executable every module is bundled into one, whose import.meta.url is the bundle's root
 * (the executable's own name there), and scripts/build.ts adds each worker script as an entry point
 * at the same path under that root as under src/. Run from source, this file is src/lib/.
 */
export function workerScriptUrl(pathUnderSrc: string): string {
  const root = import.meta.url.includes("/$bunfs/") ? "./" : "../";
  return new URL(`${root}${pathUnderSrc}`, import.meta.url).href;
}
