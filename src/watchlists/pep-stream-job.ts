import { diskLines, type FileIdentity } from "./disk-lines";
import type { WatchlistEntity } from "./entity";
import { ListParseError } from "./errors";
import { type PepFile, streamFtmFiles, streamWikidataFiles } from "./importers/wikidata/files";
import type { PepStreamStats } from "./importers/wikidata/stream-stats";

/** A PEP file read from disk, line by line, as it was when the import looked at it. */
export interface DiskPepFile {
  name: string;
  path: string;
  identity: FileIdentity;
}

/** A file of a stream: a large one read from disk, or one held in memory (a small file beside it, or an upload). */
export type JobFile = DiskPepFile | { name: string; bytes: Uint8Array };

/**
 * PEP files to stream, described by value so that a worker thread can run the stream: one format
 * family, FtM line-JSON or Wikidata entity JSON (with label files beside it).
 */
export interface PepStreamJob {
  format: "ftm-json" | "wikidata-json";
  entityFiles: JobFile[];
  labelFiles: JobFile[];
}

/** A file in memory keeps its bytes, so a small Wikidata file may still be read as one JSON document. */
function pepFile(file: JobFile): PepFile {
  if (!("path" in file)) return { name: file.name, bytes: file.bytes };
  return { name: file.name, bytes: new Uint8Array(0), lines: () => diskLines(file.name, file.path, file.identity) };
}

/** The job's persons as entities; `stats` is complete once the stream has ended. */
export function streamPepJob(job: PepStreamJob, stats: PepStreamStats): AsyncGenerator<WatchlistEntity> {
  const entityFiles = job.entityFiles.map(pepFile);
  return job.format === "ftm-json" ? streamFtmFiles(entityFiles, stats) : streamWikidataFiles(entityFiles, job.labelFiles.map(pepFile), stats);
}

/**
 * An error as a worker message can carry it. A ListParseError keeps where the file broke; any other
 * keeps its class name, message and system error code (ENOENT for a file deleted meanwhile).
 */
export type StreamError =
  | { kind: "list-parse"; file: string; location: string; reason: string; cause?: string }
  | { kind: "other"; name: string; message: string; code?: string };

export function describeStreamError(err: unknown): StreamError {
  if (err instanceof ListParseError) {
    const cause = err.cause instanceof Error ? err.cause.message : undefined;
    return { kind: "list-parse", file: err.file, location: err.location, reason: err.reason, ...(cause ? { cause } : {}) };
  }
  if (!(err instanceof Error)) return { kind: "other", name: "Error", message: String(err) };
  const code = (err as NodeJS.ErrnoException).code;
  return { kind: "other", name: err.name, message: err.message, ...(code ? { code } : {}) };
}

export function reviveStreamError(err: StreamError): Error {
  if (err.kind === "list-parse") return new ListParseError({ ...err, ...(err.cause ? { cause: new Error(err.cause) } : {}) });
  const revived: NodeJS.ErrnoException = new Error(err.message);
  revived.name = err.name;
  if (err.code) revived.code = err.code;
  return revived;
}
