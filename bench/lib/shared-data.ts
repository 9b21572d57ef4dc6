import { join, resolve } from "node:path";

/**
 * The shared data folder: `../shared` beside this repository, as CI clones it and as the tests find
 * it (test/unit/watchlists/shared-files.ts). SHARED_DATA_DIR points elsewhere (not an AML_ name: the
 * appliance refuses unknown AML_ variables). Its real list files and name data are read in place,
 * never copied into the project.
 */
export const SHARED_DIR = process.env.SHARED_DATA_DIR ? resolve(process.env.SHARED_DATA_DIR) : resolve(import.meta.dir, "../../../shared");
export const WATCHLISTS_DIR = join(SHARED_DIR, "watchlists");
export const NAMEDATA_DIR = join(SHARED_DIR, "namedata");
