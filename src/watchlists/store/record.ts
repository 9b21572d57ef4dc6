import { publishedAtMs, publishedAtUtc } from "../published-at";
import { capWarnings, KEPT_WARNINGS } from "../warning-cap";
import { appendAudit } from "@/audit/append";
import { SYSTEM_CHAIN } from "@/audit/chain";
import type { CallMeta } from "@/context";
import { newId } from "@/lib/ids";
import { yieldToEventLoop } from "@/lib/steps";
import { type Db, walAutocheckpoint, writeTxWhenFree } from "@/storage/db";
import type { SourceList, WatchlistEntity } from "../entity";
import type { ListPart } from "../editions";
import {
  describeLostList,
  emptyListError,
  futureEditionError,
  isMassRemoval,
  isOlderEdition,
  type LostList,
  MASS_REMOVAL_FLOOR,
  MassRemovalError,
  OlderEditionError,
  NEWEST_RECORDS_CHECKED,
  NEWEST_RECORDS_FLOOR,
  CutShortError,
  describeCutShortFile,
  type RegressionAllowances,
} from "../errors";
import { entityRow } from "./entity-row";
import type { ImportLease } from "./import-lock";
import { latestSnapshot } from "./read";
import { toVersion, type VersionRow } from "./rows";
import type { EntityRow, ImportProgress, ListSnapshot, ListVersion, RecordedImport, SourceImport, SourceImportResult } from "./types";

/**
 * Entity rows per write transaction. Small, so the write lock is held briefly and the batch's JSON
 * strings die young: a batch alive during a young-generation GC is promoted and then lingers.
 */
const CHUNK = 1_000;
/**
 * WAL pages between automatic checkpoints while entities are written (SQLite's default is 1000).
 * Each checkpoint ends in an fsync; a million-entity list (1.7 GB) would pay for ~430 of them.
 */
const IMPORT_WAL_AUTOCHECKPOINT = 10_000;

/**
 * Turns parsed sources into immutable list versions and one new snapshot.
 * Entities go in chunks of short transactions (screenings keep writing meanwhile); the version rows
 * and the snapshot that make them visible commit together at the end, so a crash mid-import leaves
 * the serving snapshot untouched and only orphan entity and change rows, which the next import removes
 * (or this one, when a streamed list fails part-way).
 */
export async function recordImport(
  db: Db,
  lease: ImportLease,
  imports: readonly SourceImport[],
  meta: CallMeta,
  options: { at?: Date; onProgress?: ImportProgress } & RegressionAllowances = {},
): Promise<RecordedImport> {
  const started = performance.now();
  const at = options.at ?? new Date();
  await removeOrphans(db, lease);
  const current = latestSnapshot(db);
  const pending: VersionRow[] = [];
  /** Per version: the refusals an operator's allowance let through, for its warnings and the audit entry. */
  const overrides = new Map<string, string[]>();
  const results: SourceImportResult[] = [];
  const seenSources = new Set<SourceList>();
  let wroteWhole = false;

  const checkpoints = walAutocheckpoint(db);
  db.sqlite.run(`PRAGMA wal_autocheckpoint = ${IMPORT_WAL_AUTOCHECKPOINT}`);
  try {
    for (const item of imports) {
      if (seenSources.has(item.source)) {
        throw new Error(`Two files were recognised as ${item.source} in one import; import them separately`);
      }
      seenSources.add(item.source);
      const sha256 = combinedSha(item);
      const previous = currentVersionRow(db, current, item.source);
      if (previous && previous.sha256 === sha256 && previous.is_demo === (item.isDemo ? 1 : 0)) {
        results.push(unchangedResult(item.source, previous));
        continue;
      }
      let built: WrittenEntities;
      const overridden: string[] = [];
      let notes: string[] = [];
      try {
        // The lists written before are garbage now (below). One full collection frees them before a
        // million-row stream from the worker would grow the heap on top of them: the production-scale
        // set peaked at 1,230 MiB with it and 1,428 MiB without (one run each). Only on the worker's
        // path, which the CLI takes: a server would pause its screens for it.
        if (item.rowBatches && wroteWhole) Bun.gc(true);
        built = await writeEntities(db, lease, item, previous, options.onProgress);
        if (built.entityCount === 0) throw emptyListError(item.source, item.files.map((f) => f.name));
        refuseFutureEdition(item, at);
        // Against real lists only: the first real import replaces the demo list whole, by design.
        // After the entities: a streamed list knows its publication date only at its end.
        if (previous && previous.is_demo === 0) {
          const editions = editionsOf(item, previous);
          const newest = newestRecordsLeftOut(db, item, previous, built.versionId);
          overridden.push(...refuseRegression(item, built, previous, editions, newest, options));
          notes = editionNotCompared(item, previous, editions);
        }
        // After the mass-removal rule, whose counts say more when a version serves; on a first
        // import, or a cut under its share, this is what says the parties are missing.
        overridden.push(...refuseCutShort(item, options));
        if (!isStream(item)) {
          // Written: the parsed entities are garbage now, not something a large stream after them should sit on.
          item.entities = [];
          wroteWhole = true;
        }
      } catch (err) {
        // A streamed list can fail to parse after chunks of it were written: drop them now rather
        // than leave up to a million orphan rows until the next import.
        // Not once another import has taken the lock: its own rows are orphans too until it commits.
        try {
          if (lease.held()) await removeOrphans(db, lease);
        } catch {
          // The next import removes them.
        }
        throw err;
      }
      // Read after the entities: a streamed list knows its publication date and warnings only at its end.
      const row: VersionRow = {
        id: built.versionId,
        source: item.source,
        format: item.format,
        published_at: publishedAtUtc(item.publishedAt),
        imported_at: at.toISOString(),
        imported_by: `${meta.actor.type}:${meta.actor.id}`,
        sha256,
        files: JSON.stringify(item.files),
        entity_count: built.entityCount,
        name_count: built.nameCount,
        previous_version_id: previous?.id ?? null,
        added: built.added,
        removed: built.removed,
        changed: built.changed,
        unchanged: built.unchanged,
        // The one place warnings are capped: parsed, streamed and merged lists all reach it whole.
        warnings: JSON.stringify(capWarnings([...overridden, ...notes, ...item.warnings], KEPT_WARNINGS)),
        is_demo: item.isDemo ? 1 : 0,
        lists: item.lists ? JSON.stringify(item.lists) : null,
      };
      pending.push(row);
      if (overridden.length > 0) overrides.set(row.id, overridden);
      results.push({ source: item.source, status: "imported", version: toVersion(row) });
    }
  } finally {
    // Unless it changed meanwhile: the server's checkpoint worker, failing mid-import, hands checkpoints back to this connection.
    if (walAutocheckpoint(db) === IMPORT_WAL_AUTOCHECKPOINT) db.sqlite.run(`PRAGMA wal_autocheckpoint = ${checkpoints}`);
  }

  if (pending.length === 0) return { snapshot: current, results, durationMs: performance.now() - started };

  const snapshot = await writeTxWhenFree(db, () => {
    lease.assertHeld();
    assertWhole(db, current, pending);
    return commitVersions(db, current, pending, meta, at, imports.some((i) => i.isDemo), overrides);
  });
  return { snapshot, results, durationMs: performance.now() - started };
}

/**
 * Throws when publishing `item` over the real list `previous` would quietly screen listed parties as
 * Clear: an older edition than the serving one, or a large share of its entities or names gone (a
 * truncated file, half of a list, an alias file cut short). The operator may allow either;
 * what an allowance let through is returned, to be kept in the version's warnings and the audit entry.
 */
function refuseRegression(
  item: SourceImport,
  built: WrittenEntities,
  previous: VersionRow,
  editions: Editions,
  newest: NewestRecords | null,
  options: RegressionAllowances,
): string[] {
  const overridden: string[] = [];
  if (editions.compared && isOlderEdition(editions.publishedAt, editions.servingPublishedAt)) {
    const { publishedAt, servingPublishedAt } = editions;
    if (!options.allowOlderEdition) {
      throw new OlderEditionError([{ source: item.source, publishedAt, servingPublishedAt, format: item.format, servingFormat: previous.format }]);
    }
    overridden.push(`published with allowOlderEdition: this edition is dated ${publishedAt}, before the version it replaced (${servingPublishedAt})`);
  }
  const namesLost = previous.name_count - built.nameCount;
  const listsLost = lostLists(item, previous, built.removed);
  if (isMassRemoval(built.removed, previous.entity_count) || isMassRemoval(namesLost, previous.name_count) || listsLost.length > 0) {
    if (!options.allowMassRemoval) {
      throw new MassRemovalError([
        {
          source: item.source,
          removed: built.removed,
          previous: previous.entity_count,
          namesLost,
          previousNames: previous.name_count,
          format: item.format,
          previousFormat: previous.format,
          ...(listsLost.length > 0 ? { listsLost } : {}),
        },
      ]);
    }
    const count = (n: number) => n.toLocaleString("en-US");
    const lists = listsLost.map((l) => `, leaving out the list read from ${describeLostList(l)}`).join("");
    overridden.push(
      `published with allowMassRemoval: ${count(built.removed)} of ${count(previous.entity_count)} entities removed, ${count(Math.max(namesLost, 0))} of ${count(previous.name_count)} names lost${lists}`,
    );
  }
  // After the mass-removal rule: a list left out lacks its newest records too, and is named so
  // (and, once allowed, not refused again as older). A main table cut short lacks them too: its
  // refusal (refuseCutShort) comes next, and when allowed, this is said beside it, not refused.
  if (newest === null || listsLost.length > 0) return overridden;
  const missing = `${newest.missing} of the ${newest.checked} highest-numbered records of the version it replaced`;
  if ((item.cutShort ?? []).some((cut) => cut.role === "main")) {
    overridden.push(`published with allowMassRemoval: this edition also lacks ${missing}: an older edition, or the main table cut short`);
    return overridden;
  }
  if (!options.allowOlderEdition) {
    const { publishedAt, servingPublishedAt } = editions;
    throw new OlderEditionError([
      {
        source: item.source,
        publishedAt,
        servingPublishedAt,
        format: item.format,
        servingFormat: previous.format,
        newestRecordsMissing: newest.missing,
        newestRecordsChecked: newest.checked,
        highestIdHeld: newest.highestHeld,
      },
    ]);
  }
  overridden.push(`published with allowOlderEdition: this edition lacks ${missing}${newest.highestHeld === null ? "" : `; the highest id it holds is ${newest.highestHeld}`}`);
  return overridden;
}

/**
 * Throws when the import's OFAC CSV set shows one of its own files cut short (on a first import too,
 * with nothing serving to count the loss against); allowed, what it let through.
 */
function refuseCutShort(item: SourceImport, options: RegressionAllowances): string[] {
  const cuts = item.cutShort ?? [];
  if (cuts.length === 0) return [];
  if (!options.allowMassRemoval) throw new CutShortError(cuts);
  return cuts.map((cut) => `published with allowMassRemoval: ${describeCutShortFile(cut)}`);
}

/** The serving version's highest-numbered records an import lacks, of how many looked for, and the highest id it holds. */
interface NewestRecords {
  missing: number;
  checked: number;
  highestHeld: number | null;
}

/**
 * For OFAC, whatever the dates say: of the serving version's NEWEST_RECORDS_CHECKED highest ent_nums,
 * the ones this import lacks, when there are NEWEST_RECORDS_FLOOR or more. OFAC numbers parties in
 * the order it lists them, so its newest records are the parties listed last, which an older edition
 * lacks: the 2023 CSV set over the 2024-05-03 sdn.csv lacks all 64 (it removes 1,255 records, under
 * the mass-removal share, and a CSV set carries no date to compare: import review). A CSV set merged
 * with consolidated.xml takes the XML's date, so dates alone passed it too. Looked for in the whole
 * import, whatever list or file name it is under now: both lists share the one sequence, and a party
 * moved between them keeps its number (two reviews found comparing list by list, by highest id or by
 * file name, refusing genuine updates and passing renamed files). A newer edition lacks only those of
 * them delisted since, which OFAC rarely does to parties it has just listed, and holds the parties
 * listed since: NEWEST_RECORDS_FLOOR or more numbered above the serving version's highest clear it.
 */
function newestRecordsLeftOut(db: Db, item: SourceImport, previous: VersionRow, versionId: string): NewestRecords | null {
  if (item.source !== "OFAC") return null;
  const numeric = "external_id <> '' AND external_id NOT GLOB '*[^0-9]*'";
  const newest = db.sqlite
    .query<{ external_id: string }, [string, number]>(
      `SELECT external_id FROM list_entities WHERE version_id = ? AND ${numeric} ORDER BY CAST(external_id AS INTEGER) DESC LIMIT ?`,
    )
    .all(previous.id, NEWEST_RECORDS_CHECKED)
    .map((row) => row.external_id);
  if (newest.length < NEWEST_RECORDS_FLOOR) return null;
  const removed = db.sqlite
    .query<{ n: number }, [string, ...string[]]>(
      `SELECT count(*) AS n FROM list_changes WHERE version_id = ? AND change = 'removed' AND external_id IN (${newest.map(() => "?").join(",")})`,
    )
    .get(versionId, ...newest);
  const missing = removed?.n ?? 0;
  if (missing < NEWEST_RECORDS_FLOOR) return null;
  // An older edition holds nothing listed after the serving one; a newer edition that reversed some
  // recent listings holds the parties listed since (third session review).
  const added = db.sqlite
    .query<{ n: number }, [string, number]>(
      `SELECT count(*) AS n FROM list_changes WHERE version_id = ? AND change = 'added' AND ${numeric} AND CAST(external_id AS INTEGER) > ?`,
    )
    .get(versionId, Number(newest[0]));
  if ((added?.n ?? 0) >= NEWEST_RECORDS_FLOOR) return null;
  const highest = db.sqlite
    .query<{ h: number | null }, [string]>(`SELECT max(CAST(external_id AS INTEGER)) AS h FROM list_entities WHERE version_id = ? AND ${numeric}`)
    .get(versionId);
  return { missing, checked: newest.length, highestHeld: highest?.h ?? null };
}

/**
 * The lists of a serving version read from more than one (OFAC's SDN list and its consolidated
 * non-SDN list) that this import holds (nearly) none of: fewer than a tenth of the sampled ids.
 * OFAC's non-SDN list is about 2.4% of the source, so an import of the SDN files alone passes the
 * share the mass-removal guard allows, and every party listed only on the other list would screen
 * as Clear. Lists under MASS_REMOVAL_FLOOR records may go, as a few entities always may.
 */
function lostLists(item: SourceImport, previous: VersionRow, removed: number): LostList[] {
  if (!Array.isArray(item.entities)) return [];
  if (previous.lists === null) return legacyListsLost(item, previous, removed);
  const serving = JSON.parse(previous.lists) as ListPart[];
  if (serving.length < 2) return [];
  const held = new Set((item.entities as readonly WatchlistEntity[]).map((e) => e.externalId));
  return serving
    .filter((list) => list.records >= MASS_REMOVAL_FLOOR && list.sampleIds.filter((id) => held.has(id)).length * 10 < list.sampleIds.length)
    .map((list) => ({ files: list.files, records: list.records }));
}

/** OFAC's consolidated (non-SDN) list in each of its formats, by the names OFAC publishes it under. */
const OFAC_NON_SDN_FILE = /^(cons_[a-z_]+\.csv|consolidated\.xml|cons_advanced\.xml)$/i;

/**
 * For a serving version imported before versions kept their lists (migration 0013): the first
 * import after an upgrade would otherwise be checked by the counts only, and the list it left out
 * then forgotten for good. OFAC's non-SDN list is told by the file names the serving version was
 * read from, as OFAC publishes them; an import with none of them that removes at least
 * MASS_REMOVAL_FLOOR entities left it out. Its record count was not kept, so none is given.
 */
function legacyListsLost(item: SourceImport, previous: VersionRow, removed: number): LostList[] {
  if (item.source !== "OFAC" || removed < MASS_REMOVAL_FLOOR) return [];
  const base = (name: string) => name.split(/[\\/]/).pop() ?? name;
  const served = (JSON.parse(previous.files) as Array<{ name: string }>).map((f) => f.name).filter((name) => OFAC_NON_SDN_FILE.test(base(name)));
  if (served.length === 0 || item.files.some((f) => OFAC_NON_SDN_FILE.test(base(f.name)))) return [];
  return [{ files: served }];
}

/**
 * Throws when the import is dated ahead of this appliance's clock (futureEditionError). Here for a
 * streamed list, which knows its date only at its end; each part of a merged import is checked when
 * parsed (import.ts), since the merged date is its oldest part's.
 */
function refuseFutureEdition(item: SourceImport, at: Date): void {
  const error = futureEditionError(item.source, item.files.map((f) => f.name), item.publishedAt, at);
  if (error) throw error;
}

/**
 * A warning when refuseRegression could not compare this import's edition with the serving one
 * (another format or number of files, a date missing or unreadable on one side), so an older
 * edition would have gone through unrefused: the operator is told to check, and told outright when
 * the dates, though not comparable as editions, say this one is older. None for WIKIDATA, whose date
 * is its latest record change, not an edition's, and none between undated editions of one format
 * (OFAC's CSV set, every time): a warning on every routine update would teach operators to skip it.
 */
function editionNotCompared(item: SourceImport, previous: VersionRow, editions: Editions): string[] {
  if (item.source === "WIKIDATA" || editions.compared) return [];
  const { publishedAt, servingPublishedAt } = editions;
  // Two undated editions in one format have nothing to compare whatever their files (a CSV set that
  // gains sdn_comments.csv is a routine update too).
  if (publishedAt === null && servingPublishedAt === null && item.format === previous.format) return [];
  const files = (n: number) => `${n} file${n === 1 ? "" : "s"}`;
  const when = (date: string | null) => (date === null ? "undated" : publishedAtMs(date) === null ? `dated "${date}", which is not a date this appliance reads` : `dated ${date}`);
  const ours = `${item.format} from ${files(item.files.length)}, ${when(publishedAt)}`;
  const theirs = `${previous.format} from ${files((JSON.parse(previous.files) as unknown[]).length)}, ${when(servingPublishedAt)}`;
  const base = `edition not compared with the serving version it replaces (this import: ${ours}; serving: ${theirs}): only the same format from as many files, both dated, are compared`;
  if (isOlderEdition(publishedAt, servingPublishedAt)) {
    return [`${base}. This edition's date is before the serving one's: if it is an older edition, parties designated since screen as Clear; import the current edition`];
  }
  return [`${base}. Check that it is not an older edition than the one it replaces`];
}

/**
 * The import's publication date and the serving version's, as stored, and whether the older-edition
 * rule compares them: both dates ones this appliance reads (isOlderEdition compares nothing else),
 * on editions of the same kind. refuseRegression refuses by it, editionNotCompared warns when not.
 */
type Editions =
  | { compared: true; publishedAt: string; servingPublishedAt: string }
  | { compared: false; publishedAt: string | null; servingPublishedAt: string | null };

function editionsOf(item: SourceImport, previous: VersionRow): Editions {
  const publishedAt = publishedAtUtc(item.publishedAt);
  // Stored before publication dates were kept in UTC (rows.ts reads those the same way).
  const servingPublishedAt = publishedAtUtc(previous.published_at);
  if (publishedAt !== null && servingPublishedAt !== null && publishedAtMs(publishedAt) !== null && publishedAtMs(servingPublishedAt) !== null && sameKindOfEdition(item, previous)) {
    return { compared: true, publishedAt, servingPublishedAt };
  }
  return { compared: false, publishedAt, servingPublishedAt };
}

/**
 * Whether the import's date and the serving version's mean the same thing, so that an earlier one is
 * an older edition: the same format from as many files. Not so for a PEP list (its date is its
 * latest record change, and two providers' files are no editions of one another), nor between
 * formats (the FCDO summary is dated by its latest designation, OFSI's list by its last update), nor
 * when a source gains or loses a file: a merged source takes its oldest file's date, and OFAC's
 * non-SDN list, updated less often, would make adding it look like going back.
 */
function sameKindOfEdition(item: SourceImport, previous: VersionRow): boolean {
  if (item.source === "WIKIDATA" || item.format !== previous.format) return false;
  return item.files.length === (JSON.parse(previous.files) as unknown[]).length;
}

/**
 * The serving version, with the diff of this import: nothing. Its stored diff is against the version
 * before it, and reported here it would read as entities this import added or removed.
 */
function unchangedResult(source: SourceList, previous: VersionRow): SourceImportResult {
  const version = toVersion(previous);
  return { source, status: "unchanged", version: { ...version, diff: { added: 0, removed: 0, changed: 0, unchanged: version.entityCount } } };
}

function isStream(item: SourceImport): boolean {
  return item.rowBatches !== undefined || !Array.isArray(item.entities);
}

function combinedSha(item: SourceImport): string {
  const hasher = new Bun.CryptoHasher("sha256");
  for (const file of [...item.files].sort((a, b) => a.name.localeCompare(b.name))) hasher.update(`${file.name}\0${file.sha256}\n`);
  return hasher.digest("hex");
}

function currentVersionRow(db: Db, snapshot: ListSnapshot | null, source: SourceList): VersionRow | null {
  const id = snapshot?.versions[source];
  if (!id) return null;
  return db.sqlite.query<VersionRow, [string]>("SELECT * FROM list_versions WHERE id = ?").get(id);
}

/**
 * What the commit publishes is what was written: every version holds exactly its counted rows, and
 * the snapshot it builds on is still the latest. The lease check before it makes both true; these
 * say so again in the same transaction, where a list missing most of its entities would otherwise
 * become the serving snapshot and screen its people as Clear.
 */
function assertWhole(db: Db, current: ListSnapshot | null, pending: readonly VersionRow[]): void {
  const latest = latestSnapshot(db);
  if ((latest?.id ?? null) !== (current?.id ?? null)) {
    throw new Error(`Another import published snapshot ${latest?.id} while this one ran; nothing of this one was published. Run it again.`);
  }
  const count = db.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM list_entities WHERE version_id = ?");
  for (const row of pending) {
    const stored = count.get(row.id)?.n ?? 0;
    if (stored !== row.entity_count) {
      throw new Error(`${row.source}: ${stored} of ${row.entity_count} entity rows are stored; nothing was published. Run the import again.`);
    }
  }
}

function removeOrphans(db: Db, lease: ImportLease): Promise<void> {
  return writeTxWhenFree(db, () => {
    lease.assertHeld();
    db.sqlite.run("DELETE FROM list_entities WHERE version_id NOT IN (SELECT id FROM list_versions)");
    db.sqlite.run("DELETE FROM list_changes WHERE version_id NOT IN (SELECT id FROM list_versions)");
  });
}

interface WrittenEntities {
  versionId: string;
  entityCount: number;
  nameCount: number;
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
}

/**
 * Writes the entity rows and their change rows (added, changed, removed against the previous
 * version) in chunks of short transactions. Change rows, like entity rows, belong to a version id
 * that is not committed yet: until commitVersions they are orphans that no reader looks at.
 */
async function writeEntities(
  db: Db,
  lease: ImportLease,
  item: SourceImport,
  previous: VersionRow | null,
  onProgress?: ImportProgress,
): Promise<WrittenEntities> {
  const versionId = newId();
  const before = new Map<string, string>();
  if (previous) {
    const rows = db.sqlite
      .query<{ external_id: string; content_hash: string }, [string]>(
        "SELECT external_id, content_hash FROM list_entities WHERE version_id = ?",
      )
      .iterate(previous.id);
    for (const row of rows) before.set(row.external_id, row.content_hash);
  }
  const insert = db.sqlite.prepare(
    "INSERT INTO list_entities (version_id, ordinal, external_id, content_hash, data) VALUES (?, ?, ?, ?, ?)",
  );
  const insertChange = db.sqlite.prepare("INSERT INTO list_changes (version_id, external_id, change) VALUES (?, ?, ?)");
  try {
    const seen = new Set<string>();
    const counts = { added: 0, removed: 0, changed: 0, unchanged: 0 };
    let ordinal = 0;
    let nameCount = 0;
    let rows: Array<[string, number, string, string, string]> = [];
    let changes: Array<[string, "added" | "changed" | "removed"]> = [];
    const flush = async () => {
      if (rows.length === 0 && changes.length === 0) return;
      const [entityRows, changeRows] = [rows, changes];
      rows = [];
      changes = [];
      await writeTxWhenFree(db, () => {
        // One read per chunk: an import that lost its lock stops at its next chunk, not at its end.
        lease.assertHeld();
        for (const row of entityRows) insert.run(...row);
        for (const [externalId, change] of changeRows) insertChange.run(versionId, externalId, change);
      });
    };
    /** Adds one entity's row; true when a chunk is full, to be written (flushChunk). */
    const take = (row: EntityRow): boolean => {
      const id = row.externalId;
      if (!seen.has(id)) {
        seen.add(id);
        const old = before.get(id);
        if (old === undefined) {
          changes.push([id, "added"]);
          counts.added++;
        } else if (old !== row.contentHash) {
          changes.push([id, "changed"]);
          counts.changed++;
        } else counts.unchanged++;
      }
      nameCount += row.nameCount;
      rows.push([versionId, ordinal++, id, row.contentHash, row.data]);
      return rows.length >= CHUNK;
    };
    /** Writes a full chunk and lets the server's requests run before the next. */
    const flushChunk = async () => {
      await flush();
      onProgress?.({ source: item.source, phase: "entities", done: ordinal });
      await yieldToEventLoop();
    };
    if (item.rowBatches) {
      for await (const batch of item.rowBatches) {
        for (const row of batch) if (take(row)) await flushChunk();
      }
    } else {
      for await (const entity of item.entities as AsyncIterable<WatchlistEntity>) {
        if (take(entityRow(entity))) await flushChunk();
      }
    }
    await flush();
    onProgress?.({ source: item.source, phase: "entities", done: ordinal });
    for (const id of before.keys()) {
      if (seen.has(id)) continue;
      changes.push([id, "removed"]);
      counts.removed++;
      if (changes.length >= CHUNK) await flush();
    }
    await flush();
    onProgress?.({ source: item.source, phase: "diff", done: ordinal });
    return { versionId, entityCount: ordinal, nameCount, ...counts };
  } finally {
    // A prepare()d statement still alive at close() keeps SQLite's connection, and its -wal and -shm files, open.
    insert.finalize();
    insertChange.finalize();
  }
}

function commitVersions(
  db: Db,
  current: ListSnapshot | null,
  pending: readonly VersionRow[],
  meta: CallMeta,
  at: Date,
  isDemo: boolean,
  overrides: ReadonlyMap<string, string[]>,
): ListSnapshot {
  const versions: ListVersion[] = [];
  for (const row of pending) {
    db.sqlite.run(
      `INSERT INTO list_versions (id, source, format, published_at, imported_at, imported_by, sha256, files, entity_count,
         name_count, previous_version_id, added, removed, changed, unchanged, warnings, is_demo, lists)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        row.id,
        row.source,
        row.format,
        row.published_at,
        row.imported_at,
        row.imported_by,
        row.sha256,
        row.files,
        row.entity_count,
        row.name_count,
        row.previous_version_id,
        row.added,
        row.removed,
        row.changed,
        row.unchanged,
        row.warnings,
        row.is_demo,
        row.lists,
      ],
    );
    versions.push(toVersion(row));
  }
  // A real import replaces the demo data entirely, so nobody screens against fictional entities by mistake.
  const base = current && !(current.isDemo && !isDemo) ? { ...current.versions } : {};
  for (const version of versions) base[version.source] = version.id;
  const snapshot: ListSnapshot = { id: newId(), createdAt: at.toISOString(), versions: base, isDemo };
  db.sqlite.run("INSERT INTO list_snapshots (id, created_at, versions, is_demo) VALUES (?, ?, ?, ?)", [
    snapshot.id,
    snapshot.createdAt,
    JSON.stringify(snapshot.versions),
    snapshot.isDemo ? 1 : 0,
  ]);
  appendAudit(db, {
    chain: SYSTEM_CHAIN,
    action: "list.import",
    targetType: "list_snapshot",
    targetId: snapshot.id,
    at,
    meta,
    details: {
      versions: versions.map((v) => ({
        source: v.source,
        versionId: v.id,
        format: v.format,
        publishedAt: v.publishedAt,
        sha256: v.sha256,
        entityCount: v.entityCount,
        diff: v.diff,
        ...(overrides.has(v.id) ? { overridden: overrides.get(v.id) } : {}),
      })),
    },
  });
  return snapshot;
}
