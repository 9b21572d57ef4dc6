/**
 * Wikidata items of frequently referenced countries, so citizenship and position countries
 * resolve even when the input carries no label for them. The caller's lookup (P297 or the
 * English label) always wins; items not listed here simply stay unresolved.
 */
export const COUNTRY_QIDS: Readonly<Record<string, string>> = {
  Q159: "RU", Q30: "US", Q145: "GB", Q142: "FR", Q183: "DE", Q148: "CN", Q17: "JP", Q38: "IT",
  Q29: "ES", Q851: "SA", Q794: "IR", Q796: "IQ", Q212: "UA", Q184: "BY", Q668: "IN", Q155: "BR",
  Q16: "CA", Q408: "AU", Q96: "MX", Q43: "TR", Q79: "EG", Q55: "NL", Q39: "CH", Q40: "AT",
  Q36: "PL", Q34: "SE", Q20: "NO", Q35: "DK", Q33: "FI", Q41: "GR", Q45: "PT", Q31: "BE",
  Q27: "IE", Q858: "SY", Q801: "IL", Q884: "KR", Q423: "KP", Q843: "PK", Q889: "AF", Q878: "AE",
  Q846: "QA", Q241: "CU", Q717: "VE",
};
