import anyAscii from "any-ascii";
import { latinLookalikes } from "./lookalikes";

/**
 * Character-level folding: one whitespace-free piece of a name becomes lowercase ASCII tokens.
 * Non-Latin scripts are transliterated with any-ascii; the script is remembered because later
 * stages treat consonant-only transliterations (Arabic, Hebrew, Thai) and Korean syllables specially.
 */
export type Script = "latin" | "abjad" | "hangul" | "cjk";

export interface FoldedPiece {
  readonly tokens: readonly string[];
  readonly script: Script;
}

// Scripts whose usual writing omits short vowels, so any-ascii yields consonant skeletons ("mhmd"):
// Hebrew, Arabic, Syriac, Thaana, north Indic (inherent vowel unwritten: कमल → "kml"), Thai. The
// Arabic presentation forms end at U+FEFC: U+FEFF (a byte-order mark, invisible) is not Arabic.
const ABJAD_RE = /[\u0590-\u05FF\u0780-\u07BF\u0900-\u0B7F\u0600-\u06FF\u0700-\u074F\u0750-\u077F\u08A0-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFC\u0E00-\u0E7F]/;
// Hangul letters and syllables; the fillers (U+115F, U+1160, U+3164) are blanks, split off as spaces.
const HANGUL = "\\u1100-\\u115E\\u1161-\\u11FF\\u3131-\\u3163\\u3165-\\u318E\\uAC00-\\uD7AF";
// Kana and CJK ideographs; the kana middle dot, prolonged sound and iteration marks (U+30FB-U+30FF)
// are not letters: on a Latin word ("HAMASー") they decide nothing about its script.
const CJK = "\\u3041-\\u3096\\u30A1-\\u30FA\\u3400-\\u4DBF\\u4E00-\\u9FFF\\uF900-\\uFAFF";
const HANGUL_RE = new RegExp(`[${HANGUL}]`);
const CJK_RE = new RegExp(`[${CJK}]`);
// A run of East Asian letters inside a piece, with the kana marks among them: only these are cut
// into syllables ("ウラジーミル" is one run, as it always was).
const EAST_ASIAN_RUN_RE = new RegExp(`([${HANGUL}${CJK}\\u30FC-\\u30FE\\u309D\\u309E]+)`);
const NON_ASCII_RE = /[^\x00-\x7F]/;
// any-ascii writes each CJK/Hangul syllable capitalised ("XiJinPing"); the case change is the syllable boundary.
const SYLLABLE_BOUNDARY_RE = /([A-Za-z])(?=[A-Z])/g;
// Apostrophes and the ayn/hamza marks any-ascii emits are dropped, not split: O'Brien = OBrien.
const APOSTROPHE_RE = /['`\u00B4\u2018\u2019\u02BC\u02BB]/g;
const SEPARATOR_RE = /[^a-z0-9]+/;
// A word that opens with a vowel carrier (alif, hamza or ayin; Hebrew alef or ayin; Syriac alaph)
// keeps one in its consonant form, as "a": any-ascii writes the carrier as an apostrophe that
// folding drops, or a bare alif not at all, and without it nothing says the word starts with a
// vowel (abjadMatches). A bare alif (after any tatweel, which only stretches the line) is marked as
// a hamza first, for any-ascii to write it. Where vowel marks follow ("عُمَر" → "`umar"), the
// vowel is written already and the apostrophe is only dropped.
const WORD_INITIAL_ALIF_RE = /(?<![\p{L}\p{M}])\u0640*\u0627/gu;
const VOWEL_CARRIER_RE = /(?<![A-Za-z0-9'`])['`]+(?=[b-df-hj-np-tv-z])/gi;
// ض is written d in Arabic spellings (Ramadan) and z in Persian, Urdu and Turkish ones (Reza,
// Ramazan, Fazl), as ذ and ظ are; any-ascii writes it "d", which abjadMatches lets be only d or dh.
// Folded as ذ ("dh"), it reads as either. Two Arabic-script spellings differing only there (رضا, رذا)
// fold alike, as ذ and ظ already did.
const DAD_RE = /\u0636/g;

function detectScript(piece: string): Script {
  if (ABJAD_RE.test(piece)) return "abjad";
  if (HANGUL_RE.test(piece)) return "hangul";
  if (CJK_RE.test(piece)) return "cjk";
  return "latin";
}

export function foldPiece(piece: string): FoldedPiece {
  let text = piece;
  let script: Script = "latin";
  if (NON_ASCII_RE.test(text)) {
    text = latinLookalikes(text.normalize("NFKC"));
    script = detectScript(text);
    if (script === "hangul" || script === "cjk") text = foldEastAsian(text);
    else if (script === "abjad") text = anyAscii(text.replace(WORD_INITIAL_ALIF_RE, "\u0623").replace(DAD_RE, "\u0630")).replace(VOWEL_CARRIER_RE, "a");
    else text = anyAscii(text);
  }
  const tokens = text.toLowerCase().replace(APOSTROPHE_RE, "").split(SEPARATOR_RE).filter((t) => t.length > 0);
  return { tokens, script };
}

/**
 * Transliterates a piece holding East Asian letters: each run of them is cut into its syllables, and
 * only those runs, so one ideograph or Hangul letter on an upper-case Latin word ("PUTIN李") does not
 * cut the word into letters.
 */
function foldEastAsian(text: string): string {
  const parts = text.split(EAST_ASIAN_RUN_RE);
  // split() with a capture group alternates: other text at even indexes, East Asian runs at odd ones.
  for (let i = 0; i < parts.length; i++) {
    const ascii = anyAscii(parts[i]!);
    parts[i] = i % 2 === 1 ? ` ${ascii.replace(SYLLABLE_BOUNDARY_RE, "$1 ")} ` : ascii;
  }
  return parts.join("");
}

/**
 * Whitespace, and the blanks that are not whitespace to JavaScript but are written as one: the Hangul
 * fillers (U+3164 renders as a space) and the kana middle dot that Japanese writes between the parts
 * of a foreign name ("ウラジーミル・プーチン", "VLADIMIR・PUTIN"). U+FEFF is whitespace to JavaScript
 * but an invisible character in a name: it is dropped inside the piece, as a zero-width space is.
 */
const PIECE_SEPARATOR_RE = /(?:(?!\uFEFF)[\s\u115F\u1160\u3164\uFFA0\u30FB])+/;

/** Splits on whitespace only; each piece is folded separately so results can be cached per piece. */
export function splitPieces(raw: string): string[] {
  return raw.split(PIECE_SEPARATOR_RE).filter((p) => p.length > 0);
}
