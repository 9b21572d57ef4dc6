/**
 * Words that say little about identity. They are kept (so "Al Qaida" still differs from "Qaida") but
 * weighted low: honorifics and titles, name particles, generational suffixes.
 */

/** Titles, honorifics and ranks that precede or follow a name. */
export const HONORIFICS: ReadonlySet<string> = new Set([
  "mr", "mrs", "ms", "miss", "mister", "madam", "dr", "doctor", "prof", "professor", "sir", "dame", "lord", "lady",
  "sheikh", "shaikh", "sheik", "shaykh", "cheikh", "haji", "hajji", "hadji", "hajj", "alhaj", "alhajj", "alhaji",
  "mullah", "mulla", "molla", "maulvi", "mawlawi", "moulvi", "maulavi", "maulana", "mawlana", "mufti", "qari",
  "hafiz", "ustad", "ustadh", "ustaz", "imam", "sayyed", "sayed", "syed", "sayyid",
  "general", "gen", "colonel", "col", "major", "maj", "captain", "capt", "lieutenant", "brigadier", "admiral",
  "commander", "marshal", "sergeant", "president", "minister", "senator", "hon", "honourable", "honorable",
  "rev", "reverend", "father", "bishop", "pastor", "eng", "engineer", "herr", "frau", "monsieur", "mme", "mlle",
  "senor", "senora", "jr", "junior", "sr", "senior", "ii", "iii", "iv",
  "prince", "princess",
]);

/**
 * Particles that bind to the next name part. Both spellings are indexed ("al qaida" and "alqaida").
 */
export const PARTICLES: ReadonlySet<string> = new Set([
  "al", "el", "ul", "ad", "ar", "as", "ash", "at", "az", "an", "ed", "ibn", "ibni", "bin", "ben", "bint", "binti", "bn", "bnt", "bw",
  "abu", "abou", "abo", "um", "umm", "abd", "abdul", "abdel", "abdal", "abdoul", "abdu", "ould", "bou",
  "van", "von", "der", "den", "de", "del", "della", "dela", "di", "da", "das", "dos", "du", "la", "le", "les",
  "ter", "ten", "mac", "mc", "st", "y",
]);

/**
 * The particles of Arabic script as folded (text.ts: a word's opening carrier is "a"): al (ال), bn
 * (بن; normalise.ts folds ابن to it), bnt and abnh (بنت, ابنة), abw and bw (أبو, بو). Latin
 * particles are not looked up for these: "at" (عطا, Atta) and "az" (عز, Izz) are names, and عبد
 * ("abd") keeps its full weight as it did when it folded to "bd": weighed as a particle, "Li Liu"
 * reached عبد الله on "allh" alone.
 */
export const ABJAD_PARTICLES: ReadonlySet<string> = new Set(["al", "bn", "bnt", "abnh", "abw", "bw"]);

/**
 * Generic company words that rigour's legal-form table (legal-forms.gen.ts) leaves out because they
 * are not a legal form of any one country, but that lists and subjects write interchangeably:
 * "KOREA KWANGSONG TRADING CORPORATION" is screened as "Korea Kwangsong Trading Corp" or "... Co".
 * As legal-form noise they weigh 10% and cost nothing unmatched, as "Ltd" against "LLC" does.
 */
export const COMPANY_WORDS: readonly string[] = ["company", "co", "corporation", "corp", "compagnie", "companhia"];
