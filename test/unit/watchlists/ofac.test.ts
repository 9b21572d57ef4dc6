import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { entityById, listFile, onlyList, sharedText, REAL_FILE_TIMEOUT } from "./shared-files";
import { parseListFiles } from "@/watchlists/parse-files";

setDefaultTimeout(REAL_FILE_TIMEOUT);

const sdnSet = () => ["ofac/sdn.csv", "ofac/add.csv", "ofac/alt.csv", "ofac/sdn_comments.csv"].map((p) => listFile(p));
const consSet = () => ["ofac/cons_prim.csv", "ofac/cons_add.csv", "ofac/cons_alt.csv", "ofac/cons_comments.csv"].map((p) => listFile(p));
const entNums = (rel: string) => new Set([...sharedText(rel).matchAll(/^(\d+),/gm)].map((m) => m[1]));

describe("OFAC legacy CSV set", () => {
  test("one entity per ent_num of sdn.csv, typed from SDN_Type", async () => {
    const list = await onlyList("ofac-sdn", sdnSet);
    const text = sharedText("ofac/sdn.csv");
    expect(list.entities.length).toBe(entNums("ofac/sdn.csv").size);
    expect(list.entities.length).toBe(13_821);
    const count = (type: string) => list.entities.filter((e) => e.entityType === type).length;
    expect(count("person")).toBe((text.match(/^\d+,"[^"]*","individual",/gm) ?? []).length);
    expect(count("person")).toBe(6_646);
    expect(count("organisation")).toBe(6_033);
    expect(count("vessel")).toBe(764);
    expect(count("aircraft")).toBe(378);
    expect(list.format).toBe("ofac-csv");
    expect(list.publishedAt).toBeNull();
    expect(list.files).toEqual(["sdn.csv", "add.csv", "alt.csv", "sdn_comments.csv"]);
  });

  test("every alt.csv name is on its entity, comma-stripped for individuals", async () => {
    const list = await onlyList("ofac-sdn", sdnSet);
    const byId = new Map(list.entities.map((e) => [e.externalId, e]));
    let checked = 0;
    for (const m of sharedText("ofac/alt.csv").matchAll(/^(\d+),\d+,"(?:aka|fka|nka)","([^"]+)"/gm)) {
      const entity = byId.get(m[1] ?? "");
      const want = (m[2] ?? "").toLowerCase().replace(/\s*,\s*/g, entity?.entityType === "person" ? " " : ", ").replace(/\s+/g, " ").trim();
      expect(entity?.names.some((n) => n.name.toLowerCase() === want)).toBe(true);
      checked++;
    }
    expect(checked).toBe(17_091);
  });

  test("an individual: name order kept, DOB/POB/passport parsed from Remarks", async () => {
    const e = entityById(await onlyList("ofac-sdn", sdnSet), "2676");
    expect(e.primaryName).toBe("AL ZAWAHIRI Dr. Ayman");
    expect(e.names.map((n) => n.name)).toContain("AL-ZAWAHIRI Aiman Muhammad Rabi");
    expect(e.birth).toEqual([{ date: "1951-06-19", place: "Giza, Egypt", country: "EG" }]);
    expect(e.identifiers).toContainEqual({ type: "passport", label: "Passport", number: "1084010", country: "EG" });
    expect(e.identifiers).toContainEqual({ type: "passport", label: "Passport", number: "19820215" });
    expect(e.programmes).toEqual(["SDGT"]);
    expect(e.verifyUrl).toBe("https://sanctionssearch.ofac.treas.gov/Details.aspx?id=2676");
  });

  test("nationality and gender items become structured fields", async () => {
    const e = entityById(await onlyList("ofac-sdn", sdnSet), "2677");
    expect(e.nationalities).toEqual(["EG"]);
    expect(e.gender).toBe("male");
    expect(e.birth[0]).toEqual({ date: "1947-04-19", place: "Nahia, Giza, Egypt", country: "EG" });
  });

  test("quoted a.k.a. in Remarks are weak aliases, alt.csv names strong", async () => {
    const e = entityById(await onlyList("ofac-sdn", sdnSet), "306");
    expect(e.names).toContainEqual({ name: "BNC", kind: "aka", quality: "weak", originalScript: false });
    expect(e.names).toContainEqual({ name: "NATIONAL BANK OF CUBA", kind: "aka", quality: "strong", originalScript: false });
    expect(e.addresses).toContainEqual({ full: "Zweierstrasse 35, Zurich CH-8022, Switzerland", city: "Zurich CH-8022", country: "CH" });
    expect(e.addresses.length).toBe(4);
  });

  test("vessels carry IMO and former names", async () => {
    const e = entityById(await onlyList("ofac-sdn", sdnSet), "4243");
    expect(e.entityType).toBe("vessel");
    expect(e.identifiers).toContainEqual({ type: "imo", label: "IMO", number: "7406784" });
    expect(e.names).toContainEqual({ name: "SAND SWAN", kind: "fka", quality: "weak", originalScript: false });
    expect(e.remarks).toContain("flag Panama");
  });

  test("sdn_comments.csv continues Remarks cut at 1,000 characters", async () => {
    const list = await onlyList("ofac-sdn", sdnSet);
    const e = entityById(list, "17018");
    expect(e.identifiers).toContainEqual({ type: "tax_id", label: "Tax ID No.", number: "7707083893", country: "RU" });
    expect(e.remarks).toContain("Secondary sanctions risk: Ukraine-/Russia-Related Sanctions Regulations");
    expect(e.programmes).toEqual(["UKRAINE-EO13662", "RUSSIA-EO14024"]);
    expect(list.warnings).toEqual([
      "sdn.csv line 13081: Remarks of ent_num 45430 are cut at 1000 characters and no continuation was supplied",
    ]);
  });

  test("the consolidated (non-SDN) set has the same layout", async () => {
    const list = await onlyList("ofac-cons", consSet);
    expect(list.entities.length).toBe(entNums("ofac/cons_prim.csv").size);
    expect(list.entities.length).toBe(442);
    expect(list.entities.filter((e) => e.entityType === "person").length).toBe(79);
    const haniya = entityById(list, "9639");
    expect(haniya.primaryName).toBe("HANIYA Ismail Abdul Salah");
    expect(haniya.birth).toEqual([{ date: "1962", place: "Shati" }]);
    expect(haniya.programmes).toEqual(["NS-PLC"]);
  });

  test("a later snapshot parses with an alias file; alone it is refused, naming the file it needs", async () => {
    const list = await onlyList("ofac-snapshot", () => [listFile("ofac/snapshots/sdn_2024-05-03.csv"), listFile("ofac/alt.csv")]);
    expect(list.entities.length).toBe(entNums("ofac/snapshots/sdn_2024-05-03.csv").size);
    expect(list.entities.length).toBe(14_965);
    const alone = await parseListFiles([listFile("ofac/snapshots/sdn_2024-05-03.csv")]).catch((e: unknown) => e);
    expect(alone).toMatchObject({ file: "sdn_2024-05-03.csv", location: "whole file" });
    expect((alone as Error).message).toContain("without its alias file");
  });
});
