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

/**
 * Large PEP files to stream, described by value so that a worker thread can run the stream: one
 * format family, FtM line-JSON or Wikidata entity JSON (with label files beside it).
 */
export interface PepStreamJob {
  format: "ftm-json" | "wikidata-json";
  entityFiles: DiskPepFile[];
  labelFiles: DiskPepFile[];
}

function pepFile(file: DiskPepFile): PepFile {
  return { name: file.name, bytes: new Uint8Array(0), lines: () => diskLines(file.name, file.path, file.identity) };
}

/** The job's persons as entities, read from disk; `stats` is complete once the stream has ended. */
export function streamPepJob(job: PepStreamJob, stats: PepStreamStats): AsyncGenerator<WatchlistEntity> {
  const entityFiles = job.entityFiles.map(pepFile);
  return job.format === "ftm-json" ? streamFtmFiles(entityFiles, stats) : streamWikidataFiles(entityFiles, job.labelFiles.map(pepFile), stats);
}

/** An error as a worker message can carry it: a ListParseError keeps where the file broke. */
export type StreamError = { kind: "list-parse"; file: string; location: string; reason: string } | { kind: "other"; message: string };

export function describeStreamError(err: unknown): StreamError {
  if (err instanceof ListParseError) return { kind: "list-parse", file: err.file, location: err.location, reason: err.reason };
  return { kind: "other", message: err instanceof Error ? err.message : String(err) };
}

export function reviveStreamError(err: StreamError): Error {
  if (err.kind === "list-parse") return new ListParseError(err);
  return new Error(`PEP stream: ${err.message}`);
}
