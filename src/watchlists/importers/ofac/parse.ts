import { type CutShortFile, ListParseError } from "../../errors";
import { type CsvRow, hasDosEofMarker, readCsv } from "../common/csv";
import type { ParseOutcome, TextFile } from "../common/files";
import { joinParts } from "../common/build";
import { clean } from "../common/text";
import { cutShortFiles } from "./cut-short";
import { applyRemarks } from "./remarks";
import { aliasKind, emptyRecord, type OfacRecord, sdnTypeFrom } from "./types";

/** The legacy CSV set: main table (sdn.csv / cons_prim.csv), its alias file, and its optional address and comments files. */
export interface OfacCsvSet {
  main: TextFile;
  add?: TextFile;
  alt?: TextFile;
  comments?: TextFile;
}

/** Field counts that identify each file of the set; the files have no header row. */
export const OFAC_CSV_FIELDS = { main: 12, add: 6, alt: 5, comments: 2 } as const;

/** OFAC cuts Remarks at this length and continues them in the comments file. */
const REMARKS_LIMIT = 1000;

function* rows(file: TextFile, fields: number): Generator<CsvRow> {
  for (const row of readCsv(file.text, { file: file.name, delimiter: "," })) {
    if (!row.terminated && !hasDosEofMarker(file.text)) {
      throw new ListParseError({
        file: file.name,
        location: `line ${row.line}`,
        reason: "the file ends in the middle of a record (no line break or DOS EOF marker); it may be cut short",
      });
    }
    if (row.fields.length !== fields) {
      throw new ListParseError({
        file: file.name,
        location: `line ${row.line}`,
        reason: `expected ${fields} comma-separated fields, found ${row.fields.length}`,
      });
    }
    yield row;
  }
}

function entNum(file: TextFile, row: CsvRow): string {
  const id = (row.fields[0] ?? "").trim();
  if (!/^\d+$/.test(id)) {
    throw new ListParseError({ file: file.name, location: `line ${row.line}`, reason: `ent_num ${JSON.stringify(id)} is not a number` });
  }
  return id;
}

function readMain(file: TextFile, byId: Map<string, OfacRecord>, remarks: Map<string, string>): void {
  for (const row of rows(file, OFAC_CSV_FIELDS.main)) {
    const f = row.fields;
    const id = entNum(file, row);
    const type = sdnTypeFrom(f[2] ?? "");
    if (!type) {
      throw new ListParseError({ file: file.name, location: `line ${row.line}`, reason: `unknown SDN_Type ${JSON.stringify(f[2])}` });
    }
    if (byId.has(id)) {
      throw new ListParseError({ file: file.name, location: `line ${row.line}`, reason: `ent_num ${id} appears twice` });
    }
    const record = emptyRecord(id, `${file.name} line ${row.line}`, type);
    record.name = clean(f[1]);
    record.programs = clean(f[3])
      .split(/\]\s*\[/)
      .map((p) => p.replace(/^\[|\]$/g, "").trim())
      .filter((p) => p !== "");
    record.title = clean(f[4]);
    if (type === "vessel") {
      record.vessel = {
        callSign: clean(f[5]),
        type: clean(f[6]),
        tonnage: clean(f[7]),
        grt: clean(f[8]),
        flag: clean(f[9]),
        owner: clean(f[10]),
      };
    }
    remarks.set(id, (f[11] ?? "").trim() === "-0-" ? "" : (f[11] ?? ""));
    byId.set(id, record);
  }
}

/** Parses one OFAC legacy CSV set. The legacy CSV carries no publication date. */
export function parseOfacCsvSet(set: OfacCsvSet): ParseOutcome<OfacRecord> & { cuts: CutShortFile[] } {
  const warnings: string[] = [];
  const byId = new Map<string, OfacRecord>();
  const remarks = new Map<string, string>();
  readMain(set.main, byId, remarks);
  /** Per alias and address file: its rows, and those whose ent_num the main table does not hold. */
  const companions = new Map<TextFile, { rows: number; orphans: number }>();
  const addressed = new Set<string>();
  const lookup = (file: TextFile, row: CsvRow): OfacRecord | undefined => {
    const record = byId.get(entNum(file, row));
    if (file === set.alt || file === set.add) {
      const counts = companions.get(file) ?? { rows: 0, orphans: 0 };
      counts.rows++;
      if (!record) counts.orphans++;
      companions.set(file, counts);
    }
    if (!record) warnings.push(`${file.name} line ${row.line}: ent_num ${row.fields[0]} is not in ${set.main.name}; row skipped`);
    return record;
  };
  const continued = new Set<string>();
  if (set.comments) {
    for (const row of rows(set.comments, OFAC_CSV_FIELDS.comments)) {
      const record = lookup(set.comments, row);
      if (!record) continue;
      remarks.set(record.uid, (remarks.get(record.uid) ?? "") + (row.fields[1] ?? ""));
      continued.add(record.uid);
    }
  }
  for (const record of byId.values()) {
    const text = remarks.get(record.uid) ?? "";
    if (text.length >= REMARKS_LIMIT && !continued.has(record.uid)) {
      warnings.push(`${record.location}: Remarks of ent_num ${record.uid} are cut at ${REMARKS_LIMIT} characters and no continuation was supplied`);
    }
    record.remarks = clean(text);
    applyRemarks(record, text);
  }
  if (set.alt) {
    for (const row of rows(set.alt, OFAC_CSV_FIELDS.alt)) {
      const record = lookup(set.alt, row);
      const name = clean(row.fields[3]);
      if (record && name) record.aliases.push({ name, kind: aliasKind(clean(row.fields[2])), quality: "strong" });
    }
  }
  if (!set.add) warnings.push(`${set.main.name}: no address file (add.csv or cons_add.csv) in the import: its entities carry no addresses`);
  if (set.add) {
    for (const row of rows(set.add, OFAC_CSV_FIELDS.add)) {
      const record = lookup(set.add, row);
      if (!record) continue;
      addressed.add(record.uid);
      const [, , street, city, country] = row.fields;
      const full = joinParts([street, city, country]);
      if (full) record.addresses.push({ full, city: clean(city), country: clean(country) });
    }
  }
  const unaddressed = set.add ? byId.size - addressed.size : 0;
  return { records: [...byId.values()], warnings, publishedAt: null, cuts: cutShortFiles(set, { companions, entries: byId.size, unaddressed }) };
}
