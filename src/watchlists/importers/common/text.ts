import { isoFromParts, monthNumber } from "./dates";

/** Trims and collapses whitespace; OFAC's null marker "-0-" becomes "". */
export function clean(value: string | undefined | null): string {
  if (!value) return "";
  const s = value.replace(/\s+/g, " ").trim();
  return s === "-0-" ? "" : s;
}

const NON_LATIN_LETTER = /(?![\p{Script=Latin}])\p{L}/u;

/** True when the name contains letters outside the Latin script (Cyrillic, Arabic, CJK, ...). */
export function isNonLatin(name: string): boolean {
  return NON_LATIN_LETTER.test(name);
}

/** Splits "(1) A (2) B" enumerations used by the UK lists; plain text is one item. */
export function splitNumbered(value: string): string[] {
  const s = clean(value);
  if (!s) return [];
  if (!/^\(\d+\)/.test(s)) return [s];
  return s
    .split(/\(\d+\)\s*/)
    .map((part) => part.trim().replace(/[;,.]$/, "").trim())
    .filter((part) => part !== "");
}

const DEATH_SENTENCE =
  /^(?:(?:he|she|they) (?:was|is|has been|were) |was |is |has been )?(?:(?:reportedly|reported|confirmed|believed|presumed|officially)\s+(?:to\s+(?:be|have(?:\s+been)?)\s+|as\s+)?)?(?:deceased|dead|died|killed)\b/i;
const DEATH_LABEL = /^(?:believed status\/location:\s*deceased|date of death\b|deceased\b|death (?:was )?confirmed\b|confirmed to have died\b)/i;
const LOOSE_DATE = /\b(\d{1,2}) ([A-Z][a-z]{2,8})\.? (\d{4})\b|\b([A-Z][a-z]{2,8}) (\d{4})\b|\b(1[89]\d\d|20\d\d)\b/;

export interface DeathInfo {
  deceased: boolean;
  dateOfDeath?: string;
}

/**
 * Reads a death statement about the listed subject from free-text remarks ("Reportedly
 * deceased in 2017", "Confirmed dead on 9 May 2014", "Believed status/location: deceased").
 * Parenthesised asides are removed first, and a statement must open a sentence, because
 * remarks often mention deceased associates: "associate of Usama Bin Laden (deceased)".
 */
export function detectDeath(text: string | undefined | null): DeathInfo {
  if (!text) return { deceased: false };
  const withoutAsides = text.replace(/\([^()]*\)/g, " ").replace(/\s+/g, " ");
  for (const raw of withoutAsides.split(/(?<=[.;])\s+(?=[^a-z0-9])/)) {
    const sentence = raw.trim();
    if (!DEATH_SENTENCE.test(sentence) && !DEATH_LABEL.test(sentence)) continue;
    return { deceased: true, ...deathDate(sentence) };
  }
  return { deceased: false };
}

function deathDate(sentence: string): { dateOfDeath?: string } {
  const m = LOOSE_DATE.exec(sentence);
  if (!m) return {};
  let date: string | undefined;
  if (m[1] && m[2] && m[3]) {
    const month = monthNumber(m[2]);
    date = month ? isoFromParts(Number(m[3]), month, Number(m[1])) : isoFromParts(Number(m[3]));
  } else if (m[4] && m[5]) {
    const month = monthNumber(m[4]);
    date = isoFromParts(Number(m[5]), month);
  } else if (m[6]) {
    date = isoFromParts(Number(m[6]));
  }
  return date ? { dateOfDeath: date } : {};
}
