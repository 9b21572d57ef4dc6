/**
 * Named constants of the scoring model, set while iterating on the eval (test/eval, `make eval`);
 * the default threshold that sits on top of them is chosen on the eval's training split only and
 * checked on the held-out split. docs/matching.md explains each.
 */

/** Weight multiplier of honorifics, titles and legal forms ("Dr", "Sheikh", "LLC"). */
export const NOISE_WEIGHT = 0.1;
/** Weight multiplier of particles ("al", "bin", "van"): they carry some identity, but little. */
export const PARTICLE_WEIGHT = 0.35;
/** Minimum rarity weight of a real token: even the commonest given name says something. */
export const MIN_IDF = 1;

/** Similarity credited to each kind of token equivalence (fuzzy uses the measured similarity). */
export const NICKNAME_SIM = 0.9;
export const PHONETIC_SIM = 0.88;
export const INITIAL_SIM = 0.75;
/** An initial explains at most this much weight of the full token it stands for. */
export const INITIAL_WEIGHT = 1.5;
/** Phonetic equality only counts when the spellings are at least this similar. */
export const PHONETIC_BASE_FLOOR = 0.7;
/** Vocabulary tokens kept per query token during retrieval (best similarity first). */
export const MAX_EXPANSIONS = 48;
/** Query-token weight falls to the commonest vocabulary spelling at least this similar. */
export const WEIGHT_SPELLING_SIM = 0.9;

/**
 * Unmatched tokens. A token only one side has (a dropped middle name, a patronymic) is an omission
 * and costs little; when both sides have unmatched tokens, the names disagree (Maria vs Ayman
 * Zawahiri) and the smaller unmatched side costs again as a conflict.
 */
export const OMISSION_PENALTY = 0.25;
export const CONFLICT_PENALTY = 1.0;
/** Unmatched candidate patronymics (-ovich, -ovna) are routinely left out by subjects. */
export const PATRONYMIC_WEIGHT = 0.4;

/** Names the publisher rates low quality (OFAC weak aka, UN "Low") score this fraction. */
export const WEAK_ALIAS_FACTOR = 0.9;

/** Date of birth and nationality effects, added to the name score. */
export const DOB_EXACT_BONUS = 0.04;
export const DOB_YEAR_BONUS = 0.02;
export const NATIONALITY_MATCH_BONUS = 0.02;
export const NATIONALITY_MISMATCH_PENALTY = 0.03;
/** The largest total bonus; retrieval uses it to bound what a candidate could still reach. */
export const MAX_BONUS = DOB_EXACT_BONUS + NATIONALITY_MATCH_BONUS;

/** Raw spelling similarity below which two tokens are not aligned at all. */
export const PAIR_FLOOR_RAW = 0.78;
/**
 * Fuzzy similarity is credited in full from CREDIT_KNEE up and falls CREDIT_SLOPE times faster below:
 * real spelling variants sit above ~0.88, different names that share letters at 0.75–0.85
 * ("Graham"/"Grabchak"), and a straight line would credit those nearly as much as a typo.
 */
export const CREDIT_KNEE = 0.9;
export const CREDIT_SLOPE = 2.5;
export function fuzzyCredit(sim: number): number {
  return sim >= CREDIT_KNEE ? sim : Math.max(0, CREDIT_KNEE - (CREDIT_KNEE - sim) * CREDIT_SLOPE);
}
/** Spellings equal after transliteration folding (Dzhokhar/Jokhar). */
export const LOOSE_EQUAL_SIM = 0.92;
/** A consonant transliteration that a Latin spelling accounts for letter by letter (mhmd/Mohamed). */
export const ABJAD_SIM = 0.93;
/** Phonetic equality lifts the credited similarity by at most this much, up to PHONETIC_SIM. */
export const PHONETIC_LIFT = 0.1;
/** A query of two or more substantive tokens matched through only one of them is scaled by this. */
export const SINGLE_TOKEN_FACTOR = 0.8;
/**
 * A syllable of one written word aligned out of that word's order (광수 against "Su-gwang") is
 * credited this fraction of its similarity: the name's letters are there, the name is another.
 */
export const REVERSED_SYLLABLE_FACTOR = 0.25;
