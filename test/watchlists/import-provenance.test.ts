// Each recorded file carries its own size and sha256 whatever its name: an import of OFAC's and the
// UN's consolidated.xml once recorded OFAC's file with the UN file's bytes and hash.
import { afterEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openDb, type Db } from "@/storage/db";
import { importListFiles, type ListFile, readListPath } from "@/watchlists/import";
import type { ImportReport } from "@/watchlists/store/types";

const SHARED = join(import.meta.dir, "..", "..", "..", "shared", "watchlists");
const meta = { actor: { type: "cli" as const, id: "test" } };

function digestOf(bytes: Uint8Array): { bytes: number; sha256: string } {
  return { bytes: bytes.byteLength, sha256: createHash("sha256").update(bytes).digest("hex") };
}

function recorded(report: ImportReport, source: string): Array<{ name: string; bytes: number; sha256: string }> {
  return report.results.find((r) => r.source === source)?.version.files ?? [];
}

let db: Db;
afterEach(() => db?.close());

describe("recorded files", () => {
  test("two folders' consolidated.xml in one import: each version records its own file's size and hash", async () => {
    db = openDb(":memory:");
    const [ofac, un] = ["ofac/consolidated.xml", "un/consolidated.xml"].map((rel) => join(SHARED, rel));
    const report = await importListFiles(db, [...readListPath(ofac!), ...readListPath(un!)], meta);
    expect(recorded(report, "OFAC")).toEqual([{ name: "consolidated.xml", ...digestOf(readFileSync(ofac!)) }]);
    expect(recorded(report, "UN")).toEqual([{ name: "consolidated.xml", ...digestOf(readFileSync(un!)) }]);
    expect(recorded(report, "OFAC")[0]?.bytes).toBe(949_304);
  });

  test("two files of one name in one source (detected by content) each keep their own hash", async () => {
    db = openDb(":memory:");
    const sdn = new Uint8Array(readFileSync(join(SHARED, "ofac/sdn.csv")));
    const cons = new Uint8Array(readFileSync(join(SHARED, "ofac/cons_prim.csv")));
    const alt = new Uint8Array(readFileSync(join(SHARED, "ofac/alt.csv")));
    const consAlt = new Uint8Array(readFileSync(join(SHARED, "ofac/cons_alt.csv")));
    const files: ListFile[] = [
      { name: "sdn.csv", bytes: sdn },
      { name: "sdn.csv", bytes: cons },
      { name: "alt.csv", bytes: alt },
      { name: "alt.csv", bytes: consAlt },
    ];
    const report = await importListFiles(db, files, meta);
    const hashes = recorded(report, "OFAC").map((f) => f.sha256).sort();
    expect(hashes).toEqual([sdn, cons, alt, consAlt].map((b) => digestOf(b).sha256).sort());
  });
});
