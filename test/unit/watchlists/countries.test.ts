import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { countryName, countryToIso2, isIso2, listCountries } from "@/lib/countries";
import { ALPHA3_BY_ALPHA2 } from "@/lib/countries-data";
import { sharedText, sharedUtf8, REAL_FILE_TIMEOUT } from "./shared-files";

setDefaultTimeout(REAL_FILE_TIMEOUT);

describe("countryToIso2", () => {
  test.each([
    ["Iran (Islamic Republic of)", "IR"],
    ["Russian Federation", "RU"],
    ["Korea, North", "KP"],
    ["Democratic People's Republic of Korea", "KP"],
    ["Korea, South", "KR"],
    ["Syrian Arab Republic", "SY"],
    ["Burma", "MM"],
    ["Türkiye", "TR"],
    ["Turkey", "TR"],
    ["United Kingdom", "GB"],
    ["United Kingdom of Great Britain and Northern Ireland", "GB"],
    ["Iraqi", "IQ"],
    ["Congo, Democratic Republic of the", "CD"],
    ["Congo, Republic of the", "CG"],
    ["Côte d'Ivoire", "CI"],
    ["Cote d Ivoire", "CI"],
    ["Gambia, The", "GM"],
    ["Virgin Islands, British", "VG"],
    ["Region: Crimea", "UA"],
    ["Region: Gaza", "PS"],
    ["West Bank", "PS"],
    ["Palestinian", "PS"],
    ["Kosovo", "XK"],
    ["Lao People's Democratic Republic", "LA"],
    ["Viet Nam", "VN"],
    ["RUSSIAN FEDERATION", "RU"],
    ["  united   states  ", "US"],
    ["sa", "SA"],
    ["GB", "GB"],
    ["Man, Isle of", "IM"],
    ["GBR", "GB"],
    ["deu", "DE"],
    ["PRK", "KP"],
    ["COD", "CD"],
    ["XKX", "XK"],
    ["CAN", "CA"],
    ["AND", "AD"],
    [" USA ", "US"],
  ])("%s → %s", (text, iso) => {
    expect(countryToIso2(text)).toBe(iso);
  });

  test.each([["Soviet Union"], ["former Soviet Union"], ["GBX"], ["SUN"], ["YUG"], ["Yugoslavia"], ["undetermined"], ["S"], ["Congolese"], [""], ["Atlantis"]])(
    "%s is not guessed",
    (text) => {
      expect(countryToIso2(text)).toBeUndefined();
    },
  );

  test("the table covers the ISO list once per code", () => {
    const all = listCountries();
    expect(all.length).toBe(new Set(all.map((c) => c.iso2)).size);
    expect(all.length).toBeGreaterThanOrEqual(249);
    expect(countryName("de")).toBe("Germany");
    expect(isIso2("XK")).toBe(true);
    expect(isIso2("XX")).toBe(false);
  });

  test("every country has one alpha-3 code and no two share one", () => {
    const codes = listCountries().map((c) => ALPHA3_BY_ALPHA2[c.iso2]);
    expect(codes.every((code) => code !== undefined && /^[A-Z]{3}$/.test(code))).toBe(true);
    expect(new Set(codes).size).toBe(codes.length);
    expect(Object.keys(ALPHA3_BY_ALPHA2).length).toBe(codes.length);
    for (const c of listCountries()) expect(countryToIso2(ALPHA3_BY_ALPHA2[c.iso2])).toBe(c.iso2);
  });

  test("country names used in the real UN and OFAC files resolve, except historic or vague ones", () => {
    const un = sharedUtf8("un/consolidated.xml");
    const names = new Set([...un.matchAll(/<(?:COUNTRY|COUNTRY_OF_BIRTH|ISSUING_COUNTRY|COUNTRY_OF_ISSUE)>([^<]+)</g)].map((m) => (m[1] ?? "").trim()));
    for (const m of un.matchAll(/<NATIONALITY>\s*<VALUE>([^<]*)</g)) names.add((m[1] ?? "").trim());
    for (const m of sharedText("ofac/add.csv").matchAll(/^\d+,\d+,(?:"[^"]*"|-0- ),(?:"[^"]*"|-0- ),"([^"]+)"/gm)) names.add(m[1] ?? "");
    for (const m of sharedText("ofac/sdn.csv").matchAll(/(?:nationality|citizen) ([^;."]+)/g)) names.add((m[1] ?? "").trim());
    const unresolved = [...names].filter((n) => !countryToIso2(n)).sort();
    expect(names.size).toBeGreaterThan(200);
    expect(unresolved).toEqual([
      "Netherlands Antilles",
      "Region: Commonwealth of Independent States",
      "Region: Kafia Kingi",
      "Region: Northern Mali",
      "possibly Palestinian",
      "undetermined",
    ]);
  });
});
