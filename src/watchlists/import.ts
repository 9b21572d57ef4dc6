import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync, type Stats, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { CallMeta } from "@/context";
import { sha256Hex } from "@/lib/hash";
import type { Db } from "@/storage/db";
import { detectListFile } from "./detect";
import type { ParsedList, WatchlistEntity } from "./entity";
import { ListParseError } from "./errors";
import { textLines } from "./importers/common/lines";
import { isZip } from "./importers/common/zip";
import { type PepFile, pepWarnings, streamFtmFiles, streamWikidataFiles } from "./importers/wikidata/files";
import { newPepStreamStats } from "./importers/wikidata/stream-stats";
import { parseListFiles } from "./parse-files";
import { withImportLock } from "./store/import-lock";
import { recordImport } from "./store/record";
import type { ImportedFile, ImportProgress, ImportReport, SourceImport } from "./store/types";

export interface ListFile {
  name: string;
  bytes: Uint8Array;
  /** Where readListPath found the file; a large PEP file is then streamed from here and `bytes` is never read. */
  path?: string;
}

/**
 * From this size, readListPath reads a file only when its bytes are first used, and PEP files
 * (FtM line-JSON, Wikidata dumps) are streamed into the store instead of being parsed whole: a
 * million-person file is about 1 GB, and its parsed entities several times that.
 */
export const LARGE_LIST_FILE_BYTES = 64 * 1024 * 1024;

function diskFile(full: string, stat: Stats): ListFile {
  const name = basename(full);
  if (stat.size < LARGE_LIST_FILE_BYTES) return { name, bytes: readFileSync(full), path: full };
  let bytes: Uint8Array | undefined;
  return {
    name,
    path: full,
    get bytes() {
      bytes ??= readFileSync(full);
      return bytes;
    },
  };
}

/** Reads a file, or every regular file of a directory (not recursive, hidden files skipped); large files lazily. */
export function readListPath(path: string): ListFile[] {
  const stat = statSync(path);
  if (stat.isFile()) return [diskFile(path, stat)];
  return readdirSync(path)
    .filter((name) => !name.startsWith("."))
    .map((name) => join(path, name))
    .map((full) => ({ full, stat: statSync(full) }))
    .filter(({ stat: s }) => s.isFile())
    .sort((a, b) => (a.full < b.full ? -1 : a.full > b.full ? 1 : 0))
    .map(({ full, stat: s }) => diskFile(full, s));
}

export interface ImportListOptions {
  isDemo?: boolean;
  onProgress?: ImportProgress;
  /** The lists parsed whole, before anything is written (streamed PEP lists report through onProgress instead). */
  onParsed?: (lists: ParsedList[]) => void;
  /**
   * PEP files at least this large in total are streamed into the store, and read from disk when
   * readListPath found them there (default LARGE_LIST_FILE_BYTES; Infinity parses them whole).
   */
  streamPepBytes?: number;
}

/**
 * Parses files (source and format detected by content), then records them as new list versions
 * and a new snapshot. Parsing happens before anything is written: a file that fails to parse
 * leaves the serving snapshot unchanged and the error names the file and where it broke.
 * Large PEP files are the exception: they are parsed while their entities are written (after
 * every other file has parsed), and a parse error then discards what was written, so the
 * serving snapshot is unchanged as well.
 */
export async function importListFiles(db: Db, files: readonly ListFile[], meta: CallMeta, options: ImportListOptions = {}): Promise<ImportReport> {
  if (files.length === 0) throw new Error("No files to import");
  return withImportLock(db, `${meta.actor.type}:${meta.actor.id}`, async () => {
    const { streamed, whole } = splitPepStream(files, options.streamPepBytes ?? LARGE_LIST_FILE_BYTES);
    const parsed = whole.length > 0 ? await parseListFiles(whole.map((f) => ({ name: f.name, bytes: f.bytes }))) : [];
    if (parsed.length > 0) options.onParsed?.(parsed);
    const digests = new Map(whole.map((f) => [f.name, { name: f.name, bytes: f.bytes.byteLength, sha256: sha256Hex(f.bytes) }]));
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
    if (streamed) imports.push(pepStreamImport(streamed, options.isDemo ?? false));
    return recordImport(db, imports, meta, options.onProgress ? { onProgress: options.onProgress } : {});
  });
}

// --- Streaming large PEP files ------------------------------------------------------------------

const PEP_FORMATS = new Set(["ftm-json", "wikidata-json", "wikidata-labels"]);
const HEAD_BYTES = 256 * 1024;

interface StreamedFile {
  file: ListFile;
  format: PepFormat;
  size: number;
  /** Set when the file is read from disk line by line instead of from `bytes`. */
  disk?: { path: string; stat: Stats };
}

type PepFormat = "ftm-json" | "wikidata-json" | "wikidata-labels";

function isPepFormat(format: string | undefined): format is PepFormat {
  return format !== undefined && PEP_FORMATS.has(format);
}

/**
 * A file's format from its first bytes, without reading a large file whole. Spreadsheets (zip)
 * are never PEP files; a file detection cannot place is left to parseListFiles to report. A PEP
 * file readListPath found on disk is streamed from there once it reaches `threshold` bytes.
 */
function peekPep(file: ListFile, threshold: number): StreamedFile | undefined {
  try {
    const stat = file.path ? statSync(file.path) : undefined;
    if (file.path && stat && stat.size >= threshold) {
      const head = readHead(file.path, HEAD_BYTES);
      if (isZip(head)) return undefined;
      const { format } = detectListFile({ name: file.name, bytes: head });
      return isPepFormat(format) ? { file, format, size: stat.size, disk: { path: file.path, stat } } : undefined;
    }
    if (isZip(file.bytes)) return undefined;
    const { format } = detectListFile(file);
    return isPepFormat(format) ? { file, format, size: file.bytes.byteLength } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Splits off the PEP files to stream: every FtM or Wikidata file of the import, when together they
 * reach `threshold` bytes and are of one PEP format (Wikidata label files may accompany Wikidata
 * entity files). Otherwise, mixed PEP formats included, everything is parsed whole as before.
 */
function splitPepStream(files: readonly ListFile[], threshold: number): { streamed?: StreamedFile[]; whole: ListFile[] } {
  const peps = files.map((f) => peekPep(f, threshold)).filter((p): p is StreamedFile => p !== undefined);
  const size = peps.reduce((n, p) => n + (p.format === "wikidata-labels" ? 0 : p.size), 0);
  const families = new Set(peps.map((p) => (p.format === "ftm-json" ? "ftm" : "wikidata")));
  if (size < threshold || families.size !== 1) return { whole: [...files] };
  const streamed = new Set(peps.map((p) => p.file));
  return { streamed: peps, whole: files.filter((f) => !streamed.has(f)) };
}

function pepStreamImport(streamed: readonly StreamedFile[], isDemo: boolean): SourceImport {
  const stats = newPepStreamStats();
  const pep = (s: StreamedFile): PepFile => {
    const disk = s.disk;
    if (!disk) return { name: s.file.name, bytes: s.file.bytes };
    return { name: s.file.name, bytes: new Uint8Array(0), lines: () => diskLines(s.file.name, disk.path, disk.stat) };
  };
  const of = (format: PepFormat) => streamed.filter((s) => s.format === format).map(pep);
  const ftm = of("ftm-json");
  const entities = ftm.length > 0 ? streamFtmFiles(ftm, stats) : streamWikidataFiles(of("wikidata-json"), of("wikidata-labels"), stats);
  const files: ImportedFile[] = streamed.map((s) => ({
    name: s.file.name,
    bytes: s.size,
    sha256: s.disk ? fileSha256(s.disk.path) : sha256Hex(s.file.bytes),
  }));
  return {
    source: "WIKIDATA",
    format: ftm.length > 0 ? "ftm-json" : "wikidata-json",
    files,
    entities,
    // Complete once `entities` has been read to the end, which recordImport does before it reads them.
    get publishedAt() {
      return stats.publishedAt;
    },
    get warnings() {
      return pepWarnings(stats);
    },
    isDemo,
  };
}

function readHead(path: string, max: number): Uint8Array {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(max);
    const n = readSync(fd, buf, 0, max, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/**
 * Read and decode size. Small on purpose: a decoded slice stays alive while its lines are parsed,
 * and a young-generation GC meanwhile promotes it to the old generation, where it waits for a
 * rare full collection. 8 MB slices took a million-PEP import to 1.3 GB RSS; 256 KB to 0.9 GB.
 */
const READ_CHUNK = 256 * 1024;

function fileSha256(path: string): string {
  const hasher = new Bun.CryptoHasher("sha256");
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.allocUnsafe(READ_CHUNK);
    for (let n = readSync(fd, buf, 0, READ_CHUNK, null); n > 0; n = readSync(fd, buf, 0, READ_CHUNK, null)) hasher.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hasher.digest("hex");
}

function unchanged(a: Stats, b: Stats): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}

/**
 * Lines of a UTF-8 file read from disk a slice at a time (the file is never held whole). The
 * importers read a PEP file twice; a file replaced or modified meanwhile is an error, not a mix.
 */
function* diskLines(name: string, path: string, expected: Stats): Generator<string> {
  const changed = () => new ListParseError({ file: name, location: "whole file", reason: "the file changed on disk while it was being imported" });
  const fd = openSync(path, "r");
  try {
    if (!unchanged(fstatSync(fd), expected)) throw changed();
    const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
    let buf = Buffer.allocUnsafe(READ_CHUNK);
    let kept = 0;
    let line = 1;
    const decode = (bytes: Uint8Array, last: boolean): string => {
      try {
        return decoder.decode(bytes, { stream: !last });
      } catch (err) {
        throw new ListParseError({ file: name, location: `line ${line}`, reason: "invalid UTF-8 in line-JSON", cause: err });
      }
    };
    for (;;) {
      if (kept === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, kept);
        buf = bigger;
      }
      const n = readSync(fd, buf, kept, buf.length - kept, null);
      const end = kept + n;
      if (n === 0) {
        if (end > 0) for (const l of textLines(decode(buf.subarray(0, end), true))) yield l;
        break;
      }
      const cut = buf.lastIndexOf(10, end - 1) + 1;
      if (cut === 0) {
        kept = end;
        continue;
      }
      for (const l of textLines(decode(buf.subarray(0, cut), false))) {
        line++;
        yield l;
      }
      buf.copy(buf, 0, cut, end);
      kept = end - cut;
    }
    if (!unchanged(fstatSync(fd), expected)) throw changed();
  } finally {
    closeSync(fd);
  }
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
      files: [...new Set(ordered.flatMap((p) => p.files))],
    };
  });
}
