import { newId } from "@/lib/ids";
import type { ResolvedOptions } from "@/matching/options-resolve";
import type { Match } from "@/matching/types";
import type { Db } from "@/storage/db";
import type { ScreeningSubject } from "./subject";
import { publishedAtUtc } from "@/watchlists/published-at";
import { listVersionsOf } from "./list-versions";
import type { ListVersionRef, ScreeningRecord } from "./types";

interface ScreeningRow {
  id: string;
  created_at: string;
  correlation_id: string | null;
  user_reference: string | null;
  subject: string;
  options: string;
  snapshot_id: string;
  list_versions: string;
  decision: ScreeningRecord["decision"];
  is_match: number;
  score: number;
  risk_score: number;
  risk_band: ScreeningRecord["riskBand"];
  classification: ScreeningRecord["classification"];
  pep_tiers: string;
  source_lists: string;
  match_count: number;
  matches: string;
  suppressed_matches: string;
  adverse_media_status: ScreeningRecord["adverseMediaStatus"];
  rescreen_of: string | null;
  origin: ScreeningRecord["origin"];
}

/** Whether a list version is the demo list, for records stored before their sources said so. */
type DemoVersionLookup = (versionId: string) => boolean;

function toRecord(row: ScreeningRow, isDemoVersion: DemoVersionLookup): ScreeningRecord {
  const options = JSON.parse(row.options) as ResolvedOptions;
  // Records stored before listVersions named only the selected lists, in one date form, or marked the
  // demo list, read as new ones do.
  const sources = (JSON.parse(row.list_versions) as Array<Omit<ListVersionRef, "isDemo"> & { isDemo?: boolean }>)
    .filter((s) => options.lists.includes(s.source))
    .map((s) => ({ ...s, publishedAt: publishedAtUtc(s.publishedAt), isDemo: s.isDemo ?? isDemoVersion(s.versionId) }));
  return {
    id: row.id,
    createdAt: row.created_at,
    correlationId: row.correlation_id,
    userReference: row.user_reference,
    subject: JSON.parse(row.subject) as ScreeningSubject,
    options,
    listVersions: listVersionsOf(row.snapshot_id, sources, options, new Date(row.created_at)),
    isMatch: row.is_match === 1,
    score: row.score,
    decision: row.decision,
    riskScore: row.risk_score,
    riskBand: row.risk_band,
    classification: row.classification,
    pepTiers: JSON.parse(row.pep_tiers) as ScreeningRecord["pepTiers"],
    sourceLists: JSON.parse(row.source_lists) as ScreeningRecord["sourceLists"],
    matchCount: row.match_count,
    matches: JSON.parse(row.matches) as Match[],
    suppressedMatches: JSON.parse(row.suppressed_matches) as Match[],
    adverseMediaStatus: row.adverse_media_status,
    rescreenOf: row.rescreen_of,
    origin: row.origin,
  };
}

/** A tenant's screening, or null: another tenant's id reads exactly like a missing one. */
export function findScreening(db: Db, tenantId: string, id: string): ScreeningRecord | null {
  const row = db.sqlite.query<ScreeningRow, [string, string]>("SELECT * FROM screenings WHERE id = ? AND tenant_id = ?").get(id, tenantId);
  if (!row) return null;
  // Read only for a record stored before its sources carried isDemo.
  const isDemoVersion = (versionId: string) =>
    db.sqlite.query<{ is_demo: number }, [string]>("SELECT is_demo FROM list_versions WHERE id = ?").get(versionId)?.is_demo === 1;
  return toRecord(row, isDemoVersion);
}

/** Writes the immutable screening row and its case row; runs inside the caller's write transaction. */
export function insertScreening(db: Db, tenantId: string, record: ScreeningRecord, charged: boolean): void {
  // query() caches the prepared statement on the connection; run(sql) would compile it on every screen.
  db.sqlite.query(
    `INSERT INTO screenings (id, tenant_id, created_at, correlation_id, user_reference, subject, options, snapshot_id, list_versions,
       decision, is_match, score, risk_score, risk_band, classification, pep_tiers, source_lists, match_count, matches,
       suppressed_matches, adverse_media_status, rescreen_of, origin, charged)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    record.id,
    tenantId,
    record.createdAt,
    record.correlationId,
    record.userReference,
    JSON.stringify(record.subject),
    JSON.stringify(record.options),
    record.listVersions.snapshotId,
    JSON.stringify(record.listVersions.sources),
    record.decision,
    record.isMatch ? 1 : 0,
    record.score,
    record.riskScore,
    record.riskBand,
    record.classification,
    JSON.stringify(record.pepTiers),
    JSON.stringify(record.sourceLists),
    record.matchCount,
    JSON.stringify(record.matches),
    JSON.stringify(record.suppressedMatches),
    record.adverseMediaStatus,
    record.rescreenOf,
    record.origin,
    charged ? 1 : 0,
  );
  // A Clear screening needs no review; the cases feature may still list it.
  const status = record.decision === "Clear" ? "not_required" : "open";
  db.sqlite
    .query("INSERT INTO cases (id, tenant_id, screening_id, created_at, review_status, disposition, updated_at) VALUES (?, ?, ?, ?, ?, NULL, ?)")
    .run(newId(), tenantId, record.id, record.createdAt, status, record.createdAt);
}
