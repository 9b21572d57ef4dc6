import { closeSync, openSync, readFileSync, readSync, type Stats, statSync } from "node:fs";
import { basename } from "node:path";
import type { CallMeta } from "@/context";
import { sha256Hex } from "@/lib/hash";
import type { Db } from "@/storage/db";
import { detectListFile } from "./detect";
import type { ParsedList } from "./entity";
import { fileIdentity, fileSha256 } from "./disk-lines";
import { isZip } from "./importers/common/zip";
import { listFolderFiles } from "./list-folder";
import { pepWarnings } from "./importers/wikidata/files";
import { newPepStreamStats, type PepStreamStats } from "./importers/wikidata/stream-stats";
import { mergeBySource } from "./merge-sources";
import { type ListFile as ParseInput, parseListParts } from "./parse-files";
import { pepRowsFromWorker } from "./pep-stream";
import { type JobFile, type PepStreamJob, streamPepJob } from "./pep-stream-job";
import { withImportLock } from "./store/import-lock";
import { recordImport } from "./store/record";
import type { DuplicateFile, ImportedFile, ImportProgress, ImportReport, SourceImport } from "./store/types";
import { futureEditionError, type RegressionAllowances } from "./errors";

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
  return listFolderFiles(path).map((f) => diskFile(f.path, f.stat));
}

export interface ImportListOptions extends RegressionAllowances {
  isDemo?: boolean;
  /** The import's time (default now): its versions' importedAt, and the clock a publication date may not be ahead of. */
  at?: Date;
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
  return withImportLock(db, `${meta.actor.type}:${meta.actor.id}`, async (lease) => {
    const { distinct, duplicates } = distinctFiles(files);
    const { streamed, whole } = splitPepStream(distinct, options.streamPepBytes ?? LARGE_LIST_FILE_BYTES);
    const imports = await wholeImports(whole, options);
    if (streamed) imports.push(pepStreamImport(streamed, options.isDemo ?? false));
    const report = await recordImport(db, lease, imports, meta, {
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.at ? { at: options.at } : {}),
      allowMassRemoval: options.allowMassRemoval ?? false,
      allowOlderEdition: options.allowOlderEdition ?? false,
    });
    return { ...report, duplicateFiles: duplicates };
  });
}

/**
 * The files with identical content given more than once (one file named twice, a folder and a file
 * in it, a copy under another name) taken once: read twice, a PEP file's persons would be imported
 * twice and an OFAC CSV set would clash with itself. One file on disk (same device and inode) is
 * recognised without reading it; other files of the same size are compared by sha256.
 */
export function distinctFiles(files: readonly ListFile[]): { distinct: ListFile[]; duplicates: DuplicateFile[] } {
  const bySize = new Map<number, Array<{ file: ListFile; identity?: string }>>();
  for (const file of files) {
    // A large file's bytes are read on first use: its size comes from the disk instead.
    const stat = file.path ? statSync(file.path) : undefined;
    const size = stat ? stat.size : file.bytes.byteLength;
    bySize.set(size, [...(bySize.get(size) ?? []), { file, ...(stat ? { identity: `${stat.dev}:${stat.ino}` } : {}) }]);
  }
  const sameAs = new Map<ListFile, ListFile>();
  for (const [size, group] of bySize) {
    if (group.length < 2) continue;
    const byIdentity = new Map<string, ListFile>();
    const byDigest = new Map<string, ListFile>();
    for (const { file, identity } of group) {
      const sameFile = identity === undefined ? undefined : byIdentity.get(identity);
      if (sameFile) {
        sameAs.set(file, sameFile);
        continue;
      }
      if (identity !== undefined) byIdentity.set(identity, file);
      const digest = file.path && size >= LARGE_LIST_FILE_BYTES ? fileSha256(file.path) : sha256Hex(file.bytes);
      const earlier = byDigest.get(digest);
      if (earlier) sameAs.set(file, earlier);
      else byDigest.set(digest, file);
    }
  }
  const label = (f: ListFile) => f.path ?? f.name;
  return {
    distinct: files.filter((f) => !sameAs.has(f)),
    // In the order given, each with the first file of its content.
    duplicates: files.flatMap((f) => {
      const earlier = sameAs.get(f);
      return earlier ? [{ file: label(f), sameAs: label(earlier) }] : [];
    }),
  };
}

/**
 * The files parsed whole, one import per source. A function of its own so that nothing but the
 * returned imports keeps the parsed lists alive: recordImport lets each go once it is written.
 */
async function wholeImports(whole: readonly ListFile[], options: ImportListOptions): Promise<SourceImport[]> {
  if (whole.length === 0) return [];
  const parts = await parseListParts(whole.map((f) => ({ name: f.name, bytes: f.bytes })));
  // Each part by its own date: merged, a source is dated by its oldest part, and a part dated ahead
  // of the clock beside an older one would pass (recordImport checks the merged date).
  const at = options.at ?? new Date();
  for (const { list } of parts) {
    const ahead = futureEditionError(list.source, list.files, list.publishedAt, at);
    if (ahead) throw ahead;
  }
  if (parts.length > 0) options.onParsed?.(parts.map((p) => p.list));
  return mergeBySource(parts).map(
    ({ list, inputs, lists }): SourceImport => ({
      source: list.source,
      format: list.format,
      publishedAt: list.publishedAt,
      // From the file objects, not their names: two folders' consolidated.xml are different files.
      files: inputs.map(importedFile),
      entities: list.entities,
      warnings: list.warnings,
      isDemo: options.isDemo ?? false,
      ...(lists ? { lists } : {}),
      ...(list.cutShort ? { cutShort: list.cutShort } : {}),
    }),
  );
}

function importedFile(file: ParseInput): ImportedFile {
  return { name: file.name, bytes: file.bytes.byteLength, sha256: sha256Hex(file.bytes) };
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
  const format = streamed.some((s) => s.format === "ftm-json") ? "ftm-json" : "wikidata-json";
  const files: ImportedFile[] = streamed.map((s) => ({
    name: s.file.name,
    bytes: s.size,
    sha256: s.disk ? fileSha256(s.disk.path) : sha256Hex(s.file.bytes),
  }));
  const streams = pepStreams(streamed, format, stats);
  return {
    source: "WIKIDATA",
    format,
    files,
    ...streams,
    // Complete once the entities have been read to the end, which recordImport does before it reads them.
    get publishedAt() {
      return stats.publishedAt;
    },
    get warnings() {
      return pepWarnings(stats);
    },
    isDemo,
  };
}

/**
 * An import from disk (the CLI) parses on a worker thread, which hands over stored rows
 * (pep-stream.ts); small files beside the large ones go to it in memory. Files the caller holds in
 * memory (an upload) are parsed on this thread: copying them to a worker would double their memory.
 */
function pepStreams(
  streamed: readonly StreamedFile[],
  format: "ftm-json" | "wikidata-json",
  stats: PepStreamStats,
): Pick<SourceImport, "entities" | "rowBatches"> {
  const jobFile = ({ file, disk }: StreamedFile): JobFile =>
    disk ? { name: file.name, path: disk.path, identity: fileIdentity(disk.stat) } : { name: file.name, bytes: file.bytes };
  const job: PepStreamJob = {
    format,
    entityFiles: streamed.filter((s) => s.format !== "wikidata-labels").map(jobFile),
    labelFiles: streamed.filter((s) => s.format === "wikidata-labels").map(jobFile),
  };
  if (streamed.some((s) => s.disk)) return { entities: [], rowBatches: pepRowsFromWorker(job, stats) };
  return { entities: streamPepJob(job, stats) };
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
