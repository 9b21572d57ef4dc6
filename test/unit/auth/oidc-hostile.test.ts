// Each hostile token differs from an acceptable one in one property; the verifier must refuse it
// with the reason code the HTTP layer logs. Valid ones are signed with the IdP's real key.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createOidcVerifier, InvalidTokenError, type InvalidTokenReason, type OidcVerifier } from "@/auth/oidc";
import { hostileTokens } from "../../helpers/hostile-tokens";
import { startTestIdp, type TestIdp } from "../../helpers/oidc-idp";

let idp: TestIdp;
let verifier: OidcVerifier;
let tokens: ReturnType<typeof hostileTokens>;
const jwksFetches: string[] = [];

beforeAll(async () => {
  idp = await startTestIdp();
  tokens = hostileTokens(idp);
  verifier = createOidcVerifier({
    issuer: idp.issuer,
    fetch: (url, init) => {
      if (url.endsWith("/jwks")) jwksFetches.push(url);
      return fetch(url, init);
    },
  });
});
afterAll(() => idp.stop());

async function reasonFor(token: string | Promise<string>): Promise<InvalidTokenReason> {
  const error = await verifier.verify(await token).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof InvalidTokenError)) throw new Error(`expected InvalidTokenError, got ${String(error)}`);
  return error.reason;
}

test("control: a token crafted with the real key and valid claims is accepted", async () => {
  const principal = await verifier.verify(await tokens.valid());
  expect(principal).toMatchObject({ subject: "hostile-test-subject", roles: ["admin"], tenantId: "tenant-hostile" });
});

describe("claims", () => {
  test("expired → expired", async () => expect(await reasonFor(tokens.expired())).toBe("expired"));
  test("nbf in the future → not_yet_valid", async () => expect(await reasonFor(tokens.notYetValid())).toBe("not_yet_valid"));
  test("another audience → wrong_audience", async () => expect(await reasonFor(tokens.wrongAudience())).toBe("wrong_audience"));
  test("another issuer → wrong_issuer", async () => expect(await reasonFor(tokens.wrongIssuer())).toBe("wrong_issuer"));
  test("no sub → malformed", async () => expect(await reasonFor(tokens.withoutSubject())).toBe("malformed"));
  test("a sub with a control character (ESC, a line break, NUL) → malformed; other Unicode is kept", async () => {
    for (const sub of ["adm\u001b[31mRED\u001b[0m", "adm\nrevokedBy  forged", "\u0000nul", "a\u0085b"]) {
      expect(await reasonFor(tokens.valid({ sub }))).toBe("malformed");
    }
    expect((await verifier.verify(await tokens.valid({ sub: "José Müller (Ops) ✓" }))).subject).toBe("José Müller (Ops) ✓");
  });
  test("no exp (would never expire) → malformed", async () => expect(await reasonFor(tokens.withoutExp())).toBe("malformed"));

  test("clock skew: 10 s past exp is tolerated with the default 30 s, 60 s is not", async () => {
    const now = Math.floor(Date.now() / 1000);
    await verifier.verify(await tokens.valid({ exp: now - 10 }));
    expect(await reasonFor(tokens.valid({ exp: now - 60 }))).toBe("expired");
    expect(await reasonFor(tokens.valid({ nbf: now + 60 }))).toBe("not_yet_valid");
  });

  test("iat in the future beyond the skew → not_yet_valid; within it, or absent, is accepted", async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await reasonFor(tokens.valid({ iat: now + 7200, exp: now + 10800 }))).toBe("not_yet_valid");
    await verifier.verify(await tokens.valid({ iat: now + 10 }));
    await verifier.verify(await tokens.valid({ iat: undefined }));
  });

  test("audience as an array containing aml-api is accepted", async () => {
    await verifier.verify(await tokens.valid({ aud: ["account", "aml-api"] }));
  });
});

describe("signatures and algorithms", () => {
  test("one signature character changed → bad_signature", async () => {
    expect(await reasonFor(tokens.tamperedSignature())).toBe("bad_signature");
  });
  test("payload swapped under a real signature (auditor promoted to admin) → bad_signature", async () => {
    expect(await reasonFor(tokens.tamperedPayload())).toBe("bad_signature");
  });
  test("alg none → unsupported_alg", async () => expect(await reasonFor(tokens.algNone())).toBe("unsupported_alg"));
  test("HS256 keyed with the IdP's public key as PEM → unsupported_alg", async () => {
    expect(await reasonFor(tokens.hs256WithPublicKeyPem())).toBe("unsupported_alg");
  });
  test("HS256 keyed with the IdP's public JWK as JSON → unsupported_alg", async () => {
    expect(await reasonFor(tokens.hs256WithPublicJwkJson())).toBe("unsupported_alg");
  });
  test("PS256 header against a JWK published as RS256 → unsupported_alg", async () => {
    expect(await reasonFor(tokens.algMismatch())).toBe("unsupported_alg");
  });
  test("an attacker's key under the IdP's real kid → bad_signature", async () => {
    expect(await reasonFor(tokens.foreignKeyWithRealKid())).toBe("bad_signature");
  });
  test("a kid the IdP never published → unknown_key", async () => {
    expect(await reasonFor(tokens.unknownKey())).toBe("unknown_key");
  });

  test("refused algorithms never cause a JWKS refetch", async () => {
    await verifier.verify(await tokens.valid());
    const before = jwksFetches.length;
    for (let i = 0; i < 5; i++) {
      await reasonFor(tokens.algNone());
      await reasonFor(tokens.hs256WithPublicJwkJson());
      await reasonFor(tokens.algMismatch());
    }
    expect(jwksFetches.length).toBe(before);
  });
});

describe("shape", () => {
  test.each([
    ["empty", ""],
    ["two segments", "abc.def"],
    ["API key", "aml_live_0123456789abcdef"],
    ["non-JSON header", "bm90LWpzb24.e30.c2ln"],
    ["header without alg", `${Buffer.from("{}").toString("base64url")}.e30.c2ln`],
    ["whitespace inside", "eyJhbGciOiJSUzI1NiJ9 .e30.c2ln"],
    ["oversized", `eyJhbGciOiJSUzI1NiJ9.${"A".repeat(20_000)}.c2ln`],
  ])("%s → malformed", async (_name, token) => {
    expect(await reasonFor(token)).toBe("malformed");
  });

  test("the error never echoes the token", async () => {
    const token = await tokens.tamperedSignature();
    const error = (await verifier.verify(token).catch((e: unknown) => e)) as InvalidTokenError;
    const [, payload, signature] = token.split(".");
    for (const text of [error.message, error.detail, JSON.stringify(error)]) {
      expect(text).not.toContain(signature ?? "");
      expect(text).not.toContain(payload ?? "");
    }
  });
});
