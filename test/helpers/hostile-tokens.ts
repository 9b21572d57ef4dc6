// Tokens a verifier must refuse, built from the test IdP's real signing key so that exactly one
// property is wrong in each (the claim, the signature, or the algorithm).
import { exportSPKI, generateKeyPair, importJWK, type JWTPayload, SignJWT } from "jose";
import { API_AUDIENCE, type TestIdp } from "./oidc-idp";

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Claims of a token the verifier would accept: admin role, one tenant, ten minutes left. */
export function validClaims(idp: TestIdp, overrides: JWTPayload = {}): JWTPayload {
  const iat = nowSeconds();
  return {
    iss: idp.issuer,
    aud: API_AUDIENCE,
    sub: "hostile-test-subject",
    client_id: "aml-admin-cli",
    roles: ["admin"],
    tenant_id: "tenant-hostile",
    iat,
    exp: iat + 600,
    ...overrides,
  };
}

/** Replaces one character in the middle of the signature (the last one may only touch padding bits). */
export function tamperSignature(token: string): string {
  const [h, p, s = ""] = token.split(".");
  const i = Math.floor(s.length / 2);
  const flipped = s[i] === "A" ? "B" : "A";
  return `${h}.${p}.${s.slice(0, i)}${flipped}${s.slice(i + 1)}`;
}

/** Keeps header and signature, swaps in another payload: e.g. a self-promoted role. */
export function tamperPayload(token: string, payload: JWTPayload): string {
  const [h, , s] = token.split(".");
  return `${h}.${b64url(payload)}.${s}`;
}

export function hostileTokens(idp: TestIdp) {
  const real = () => idp.signingKey();
  const now = nowSeconds();
  /** HS256 with `secret` as the HMAC key: the classic RS/HS key-confusion attack. */
  const hmacWith = (secret: string, claims: JWTPayload) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", typ: "at+jwt", kid: real().kid })
      .sign(new TextEncoder().encode(secret));
  // An RSA JWK always imports as a CryptoKey (only "oct" keys come back as bytes).
  const publicPem = async () => exportSPKI((await importJWK(real().publicJwk, "RS256", { extractable: true })) as CryptoKey);

  return {
    valid: (overrides?: JWTPayload) => idp.mintRaw(validClaims(idp, overrides)),
    expired: () => idp.mintRaw(validClaims(idp, { iat: now - 7200, exp: now - 3600 })),
    notYetValid: () => idp.mintRaw(validClaims(idp, { nbf: now + 3600 })),
    wrongAudience: () => idp.mintRaw(validClaims(idp, { aud: "some-other-api" })),
    wrongIssuer: () => idp.mintRaw(validClaims(idp, { iss: "http://127.0.0.1:9/evil-realm" })),
    withoutSubject: () => idp.mintRaw(validClaims(idp, { sub: undefined })),
    withoutExp: () => idp.mintRaw(validClaims(idp, { exp: undefined })),
    tamperedSignature: async () => tamperSignature(await idp.mintRaw(validClaims(idp))),
    tamperedPayload: async () =>
      tamperPayload(await idp.mintRaw(validClaims(idp, { roles: ["auditor"] })), validClaims(idp, { roles: ["admin"] })),
    /** Unsigned token: empty signature segment. */
    algNone: () => `${b64url({ alg: "none", typ: "at+jwt", kid: real().kid })}.${b64url(validClaims(idp))}.`,
    hs256WithPublicKeyPem: async () => hmacWith(await publicPem(), validClaims(idp)),
    hs256WithPublicJwkJson: () => hmacWith(JSON.stringify(real().publicJwk), validClaims(idp)),
    /** Signed by the real key, but the header claims PS256 while the published JWK says RS256. */
    algMismatch: () => idp.mintRaw(validClaims(idp), { alg: "PS256" }),
    /** A key the IdP never published, under a kid it never used. */
    unknownKey: async () => {
      const { privateKey } = await generateKeyPair("RS256");
      return new SignJWT(validClaims(idp)).setProtectedHeader({ alg: "RS256", kid: "attacker-key" }).sign(privateKey);
    },
    /** An attacker's own key presented under the IdP's real kid. */
    foreignKeyWithRealKid: async () => {
      const { privateKey } = await generateKeyPair("RS256");
      return new SignJWT(validClaims(idp)).setProtectedHeader({ alg: "RS256", kid: real().kid }).sign(privateKey);
    },
  };
}
