import { doubleMetaphone } from "double-metaphone";

/**
 * Double Metaphone keys of a token (primary, and secondary when different). Tokens shorter than
 * three letters get no key: for them the keys collide with most other short tokens ("al", "ali",
 * "ela", "lee" share "AL") and would add noise rather than recall.
 */
export function phoneticKeys(token: string): readonly string[] {
  if (token.length < 3 || /\d/.test(token)) return [];
  const [primary, secondary] = doubleMetaphone(token);
  if (!primary) return [];
  return secondary && secondary !== primary ? [primary, secondary] : [primary];
}
