/**
 * Normalised identifier types from the publishers' free-form labels. Order matters: the first
 * matching rule wins, so specific labels ("Diplomatic Passport", "Legal Entity Number") come
 * before generic ones ("Number").
 */
const RULES: readonly (readonly [RegExp, string])[] = [
  [/passport/i, "passport"],
  [/\bimo\b/i, "imo"],
  [/\bmmsi\b/i, "mmsi"],
  [/swift|\bbic\b(?! \(ru\))/i, "swift_bic"],
  [/legal entity (?:number|identifier)|\blei\b/i, "lei"],
  [/\bisin\b/i, "isin"],
  [/digital currency|crypto|wallet/i, "crypto_wallet"],
  [/aircraft|tail number|\bmsn\b/i, "aircraft"],
  [/tax|fiscal|\bv\.?a\.?t\b|r\.?f\.?c\.?|\bfein\b|\bnit\b|\binn\b|c\.u\.i\.t|\bkpp\b|\brtn\b/i, "tax_id"],
  [
    /regist|company (?:number|no)|incorporation|chamber of|licen[cs]e|enterprise number|social credit|uscc|folio mercantil|matricula|\bc\.r\.|d-u-n-s|\bduns\b|\bogrn\b|branch unit|charity|gazette|business number|\bkvk\b|\bcbls\b/i,
    "registration",
  ],
  [
    /national|identif|identity|\bid\b|cedula|c[eé]dula|d\.n\.i|c\.u\.r\.p|curp|citizen'?s card|electoral|i\.f\.e|birth certificate|residen|immigration|travel document|driver|\bssn\b|social security|cartilla|c\.u\.i\b|\ble number|personal|numero de identidad|kenyan id|turkish identification/i,
    "national_id",
  ],
];

export function identifierType(label: string): string {
  for (const [pattern, type] of RULES) if (pattern.test(label)) return type;
  return "other";
}
