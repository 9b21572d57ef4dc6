import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { streamLines, textLines } from "@/watchlists/importers/common/lines";
import { UNNAMED_POST } from "@/watchlists/importers/wikidata/ftm-map";
import { parseFtmLines } from "@/watchlists/importers/wikidata/ftm-parse";
import { newPepStreamStats } from "@/watchlists/importers/wikidata/stream-stats";
import { pepWarnings, streamPepListFiles } from "@/watchlists/parse-files";
import { entityById, listFile, onlyList, sharedUtf8, REAL_FILE_TIMEOUT } from "./shared-files";

setDefaultTimeout(REAL_FILE_TIMEOUT);

const SA = "wikidata/opensanctions_ftm_sa_wiki_peps/entities.ftm.json";
const ZALA = "wikidata/opensanctions_ftm_reference/zala_entities.ftm.json";
const sa = () => onlyList("ftm-sa", () => [listFile(SA)]);

interface Raw {
  id: string;
  schema: string;
  properties: Record<string, string[]>;
}

/** The listing rule, recomputed from the raw lines: PEP evidence, then one hop of Family links. */
function expectedIds(rel: string): Set<string> {
  const raws = sharedUtf8(rel).trim().split("\n").map((l) => JSON.parse(l) as Raw);
  const persons = raws.filter((r) => r.schema === "Person");
  const holders = new Set(raws.filter((r) => r.schema === "Occupancy").flatMap((r) => r.properties.holder ?? []));
  const peps = new Set(
    persons
      .filter((p) => {
        const topics = p.properties.topics ?? [];
        const pepTopic = topics.some((t) => t === "role.pep" || t.startsWith("gov."));
        return holders.has(p.id) || pepTopic || (topics.length === 0 && (p.properties.position ?? []).length > 0);
      })
      .map((p) => p.id),
  );
  const out = new Set(peps);
  for (const f of raws.filter((r) => r.schema === "Family")) {
    const [a, b] = [f.properties.person?.[0] ?? "", f.properties.relative?.[0] ?? ""];
    if (peps.has(a)) out.add(b);
    if (peps.has(b)) out.add(a);
  }
  return new Set([...out].filter((id) => persons.some((p) => p.id === id)));
}

describe("FollowTheMoney line-JSON", () => {
  test("PEPs (Occupancy or position) and their Family relatives are listed", async () => {
    const list = await sa();
    const expected = expectedIds(SA);
    expect(new Set(list.entities.map((e) => e.externalId))).toEqual(expected);
    expect(list.entities.length).toBe(419);
    expect(list.format).toBe("ftm-json");
    expect(list.publishedAt).toBe("2024-03-14T11:31:42");
    expect(list.warnings).toEqual(["188 persons have neither a position nor a family or associate link to a PEP of the input; not listed"]);
  });

  test("an Occupancy without a post still makes its holder a PEP, with its dates", async () => {
    const e = entityById(await sa(), "Q12223501");
    expect(e.pep?.positions).toContainEqual({ title: UNNAMED_POST, country: "SA", international: false, start: "1933-01-01", end: "1943-01-01" });
    expect(e.names).toContainEqual({ name: "Abdullah ibn Suleiman al-Hamdan", kind: "aka", quality: "strong", originalScript: false });
    expect(e.names.some((n) => n.originalScript)).toBe(true);
  });

  test("invalid country values (single letters in this third-party file) are ignored, not guessed", async () => {
    const list = await sa();
    const all = list.entities.flatMap((e) => e.nationalities);
    expect(all.every((c) => /^[A-Z]{2}$/.test(c))).toBe(true);
    expect(all).not.toContain("S");
  });

  test("a sanctions export (job titles, sanction topics) yields no PEPs", async () => {
    const list = await onlyList("ftm-zala", () => [listFile(ZALA)]);
    expect(list.entities).toEqual([]);
    expect(list.warnings).toEqual(["6 persons have neither a position nor a family or associate link to a PEP of the input; not listed"]);
    expect(list.publishedAt).toBe("2026-04-29T12:53:04");
  });

  test("the streaming API reads the graph twice and yields the same persons", async () => {
    const text = sharedUtf8(SA);
    const stats = newPepStreamStats();
    const ids: string[] = [];
    for await (const e of parseFtmLines(() => textLines(text), { file: "sa.json", stats })) ids.push(e.externalId);
    expect(ids.sort()).toEqual((await sa()).entities.map((e) => e.externalId).sort());
    expect(stats.skippedPersons).toBe(188);
  });

  test("streamPepListFiles yields the same persons without collecting them", async () => {
    const stream = streamPepListFiles([listFile(SA, "peps.bin")]);
    expect(stream.format).toBe("ftm-json");
    let n = 0;
    for await (const _e of stream.entities) n++;
    expect(n).toBe(419);
    expect(stream.stats.publishedAt).toBe("2024-03-14T11:31:42");
    expect(pepWarnings(stream.stats)).toEqual((await sa()).warnings);
  });

  test("a byte stream split inside lines and characters decodes to the same lines", async () => {
    const bytes = new TextEncoder().encode("ä1\r\nβ2\n€3");
    const chunks = [bytes.slice(0, 1), bytes.slice(1, 4), bytes.slice(4, 7), bytes.slice(7)];
    async function* source() {
      yield* chunks;
    }
    const lines: string[] = [];
    for await (const l of streamLines(source())) lines.push(l);
    expect(lines).toEqual(["ä1", "β2", "€3"]);
  });

  test("a PEP stream refuses sanctions list files", () => {
    expect(() => streamPepListFiles([listFile("un/consolidated.xml")])).toThrow("of one format only");
  });
});

