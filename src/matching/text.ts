import anyAscii from "any-ascii";

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
// Hebrew, Arabic, Syriac, Thaana, north Indic (inherent vowel unwritten: कमल → "kml"), Thai.
const ABJAD_RE = /[\u0590-\u05FF\u0780-\u07BF\u0900-\u0B7F\u0600-\u06FF\u0700-\u074F\u0750-\u077F\u08A0-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\u0E00-\u0E7F]/;
const HANGUL_RE = /[\u1100-\u11FF\u3130-\u318F\uAC00-\uD7AF]/;
const CJK_RE = /[\u3040-\u30FF\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF]/;
const NON_ASCII_RE = /[^\x00-\x7F]/;
// any-ascii writes each CJK/Hangul syllable capitalised ("XiJinPing"); the case change is the syllable boundary.
const SYLLABLE_BOUNDARY_RE = /([A-Za-z])(?=[A-Z])/g;
// Apostrophes and the ayn/hamza marks any-ascii emits are dropped, not split: O'Brien = OBrien.
const APOSTROPHE_RE = /['`\u00B4\u2018\u2019\u02BC\u02BB]/g;
const SEPARATOR_RE = /[^a-z0-9]+/;

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
    text = text.normalize("NFKC");
    script = detectScript(text);
    text = anyAscii(text);
    if (script === "hangul" || script === "cjk") text = text.replace(SYLLABLE_BOUNDARY_RE, "$1 ");
  }
  const tokens = text.toLowerCase().replace(APOSTROPHE_RE, "").split(SEPARATOR_RE).filter((t) => t.length > 0);
  return { tokens, script };
}

/** Splits on whitespace only; each piece is folded separately so results can be cached per piece. */
export function splitPieces(raw: string): string[] {
  return raw.split(/[\s\u00A0\u3000]+/).filter((p) => p.length > 0);
}
