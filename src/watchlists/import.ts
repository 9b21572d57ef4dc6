import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { CallMeta } from "@/context";
import { sha256Hex } from "@/lib/hash";
import type { Db } from "@/storage/db";
import type { ParsedList, WatchlistEntity } from "./entity";
import { parseListFiles } from "./parse-files";
import { withImportLock } from "./store/import-lock";
import { recordImport } from "./store/record";
import type { ImportProgress, ImportReport, SourceImport } from "./store/types";

export interface ListFile {
  name: string;
  bytes: Uint8Array;
}

/** Reads a file, or every regular file of a directory (not recursive, hidden files skipped). */
export function readListPath(path: string): ListFile[] {
  const stat = statSync(path);
  if (stat.isFile()) return [{ name: basename(path), bytes: readFileSync(path) }];
  return readdirSync(path)
    .filter((name) => !name.startsWith("."))
    .map((name) => join(path, name))
    .filter((full) => statSync(full).isFile())
    .sort()
    .map((full) => ({ name: basename(full), bytes: readFileSync(full) }));
}

/**
 * Parses files (source and format detected by content), then records them as new list versions
 * and a new snapshot. Parsing happens before anything is written: a file that fails to parse
 * leaves the serving snapshot unchanged and the error names the file and where it broke.
 */
export async function importListFiles(
  db: Db,
  files: readonly ListFile[],
  meta: CallMeta,
  options: { isDemo?: boolean; onProgress?: ImportProgress; onParsed?: (lists: ParsedList[]) => void } = {},
): Promise<ImportReport> {
  if (files.length === 0) throw new Error("No files to import");
  return withImportLock(db, `${meta.actor.type}:${meta.actor.id}`, async () => {
    const parsed = await parseListFiles(files.map((f) => ({ name: f.name, bytes: f.bytes })));
    for (const list of parsed) list.files ??= parsed.length === 1 ? files.map((f) => f.name) : [];
    options.onParsed?.(parsed);
    const digests = new Map(files.map((f) => [f.name, { name: f.name, bytes: f.bytes.byteLength, sha256: sha256Hex(f.bytes) }]));
    const imports = mergeBySource(parsed).map(
      (group): SourceImport => ({
        source: group.source,
        format: group.format,
        publishedAt: group.publishedAt,
        files: group.files
          .map((name) => digests.get(name))
          .filter((d): d is NonNullable<typeof d> => d !== undefined),
        entities: group.entities,
        warnings: group.warnings,
        isDemo: options.isDemo ?? false,
      }),
    );
    return recordImport(db, imports, meta, options.onProgress ? { onProgress: options.onProgress } : {});
  });
}

/**
 * One version per source: an import may carry several files of one source (OFAC's SDN set and its
 * consolidated non-SDN list, or one list in two formats). Entities are merged by external id; when
 * a record appears in several parts, the part published last wins. The version's publication date
 * is the oldest known part's, so maxDataAgeDays never overstates freshness.
 */
export function mergeBySource(parsed: readonly ParsedList[]): ParsedList[] {
  const groups = new Map<string, ParsedList[]>();
  for (const list of parsed) groups.set(list.source, [...(groups.get(list.source) ?? []), list]);
  return [...groups.values()].map((parts) => {
    if (parts.length === 1) return parts[0]!;
    const ordered = [...parts].sort((a, b) => (a.publishedAt ?? "").localeCompare(b.publishedAt ?? ""));
    const byId = new Map<string, WatchlistEntity>();
    const warnings: string[] = [];
    for (const part of ordered) {
      for (const entity of part.entities) {
        if (byId.has(entity.externalId)) {
          warnings.push(`${entity.source} ${entity.externalId} appears in more than one file; kept the ${part.format} record (published ${part.publishedAt ?? "undated"})`);
        }
        byId.set(entity.externalId, entity);
      }
      warnings.push(...part.warnings);
    }
    const dates = ordered.map((p) => p.publishedAt).filter((d): d is string => d !== null);
    return {
      source: parts[0]!.source,
      format: [...new Set(ordered.map((p) => p.format))].join("+"),
      publishedAt: dates[0] ?? null,
      entities: [...byId.values()],
      warnings,
      files: [...new Set(ordered.flatMap((p) => p.files ?? []))],
    };
  });
}
