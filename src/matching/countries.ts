import anyAscii from "any-ascii";

/**
 * Country names and codes → ISO 3166-1 alpha-2. English names come from the runtime's CLDR data
 * (Intl.DisplayNames) rather than a hand-typed table; withdrawn and private-use codes are skipped so
 * "Germany" resolves to DE, not DD.
 */
const NOT_COUNTRIES = new Set(
  "AC AN BU CP CQ CS DD DG DY EA EU EZ FX HV IC NH QO RH SU TA TP UK UN VD XA XB YD YU ZR ZZ".split(" "),
);

const ALIASES: Record<string, string> = {
  uk: "GB", "great britain": "GB", britain: "GB", england: "GB", scotland: "GB", wales: "GB",
  usa: "US", "united states of america": "US", america: "US",
  "russian federation": "RU", "iran islamic republic of": "IR", "islamic republic of iran": "IR",
  "syrian arab republic": "SY", "democratic peoples republic of korea": "KP", dprk: "KP",
  "republic of korea": "KR", korea: "KR", "viet nam": "VN", "lao peoples democratic republic": "LA",
  burma: "MM", myanmar: "MM", turkey: "TR", "ivory coast": "CI", "cote divoire": "CI",
  "democratic republic of the congo": "CD", drc: "CD", "republic of the congo": "CG", congo: "CG",
  palestine: "PS", "state of palestine": "PS", macedonia: "MK", swaziland: "SZ", "cabo verde": "CV",
  "east timor": "TL", vatican: "VA", "holy see": "VA", "czech republic": "CZ", "hong kong": "HK",
  macau: "MO", macao: "MO", "bolivia plurinational state of": "BO", "venezuela bolivarian republic of": "VE",
  "tanzania united republic of": "TZ", "moldova republic of": "MD", "the gambia": "GM", "the bahamas": "BS",
};

function fold(text: string): string {
  return anyAscii(text.normalize("NFKC"))
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/[^a-z ]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

function buildTable(): ReadonlyMap<string, string> {
  const table = new Map<string, string>();
  const names = new Intl.DisplayNames(["en"], { type: "region" });
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      if (NOT_COUNTRIES.has(code)) continue;
      let name: string | undefined;
      try {
        name = names.of(code);
      } catch {
        name = undefined;
      }
      if (!name || name === code) continue;
      table.set(fold(name), code);
      // CLDR adds qualifiers ("Myanmar (Burma)", "Congo - Kinshasa"); the bare name is common too.
      const bare = fold(name.replace(/\(.*\)|\s-\s.*$/g, ""));
      if (!table.has(bare)) table.set(bare, code);
    }
  }
  for (const [alias, code] of Object.entries(ALIASES)) table.set(fold(alias), code);
  return table;
}

const TABLE = buildTable();

/** ISO2 for a code ("af", "AF") or an English country name ("Afghanistan"); null when unknown. */
export function countryCode(text: string | null | undefined): string | null {
  if (!text) return null;
  const trimmed = text.trim();
  if (/^[A-Za-z]{2}$/.test(trimmed)) {
    const upper = trimmed.toUpperCase();
    return upper === "UK" ? "GB" : upper;
  }
  return TABLE.get(fold(trimmed)) ?? null;
}

/** Packs an ISO2 code into 10 bits for the compact entity table. */
export function packCountry(code: string): number {
  return (code.charCodeAt(0) - 65) * 26 + (code.charCodeAt(1) - 65);
}
