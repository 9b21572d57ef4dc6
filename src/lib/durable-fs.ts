import { closeSync, fsyncSync, openSync } from "node:fs";

/**
 * fsync for files written outside SQLite (SQLite syncs its own). A file is only safe from a power cut
 * once its data and the folder entry that names it are both on disk, so callers sync the file, then
 * its folder.
 */
export function syncFile(path: string): void {
  syncAndClose(openSync(path, "r"));
}

/**
 * Makes a folder's entries (new names, removed ones) survive a power cut. No failure is tolerated:
 * the appliance runs on Linux, where ext4, xfs and btrfs all sync a folder opened read-only, so a
 * failure here is a real I/O error.
 */
export function syncDirectory(dir: string): void {
  syncAndClose(openSync(dir, "r"));
}

/** Syncs an open file's data to the disk, then closes it (also when the sync fails). */
export function syncAndClose(fd: number): void {
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
