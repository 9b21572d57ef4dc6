// Claim mapping: the path syntax, and real IdP tokens shaped like Keycloak, Auth0/Okta and Entra ones.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ClaimPathError, claimAsString, claimAsStringList, isSpaceDelimitedClaim, parseClaimPath, readClaim } from "@/auth/claims";
import { createOidcVerifier, looksLikeJwt } from "@/auth/oidc";
import { hostileTokens } from "../../helpers/hostile-tokens";
import { startTestIdp, type TestIdp } from "../../helpers/oidc-idp";

describe("parseClaimPath", () => {
  test.each([
    ["roles", ["roles"]],
    ["realm_access.roles", ["realm_access", "roles"]],
    ["resource_access.aml-api.roles", ["resource_access", "aml-api", "roles"]],
    ['resource_access["aml-api"].roles', ["resource_access", "aml-api", "roles"]],
    ['["https://example.com/roles"]', ["https://example.com/roles"]],
    ["['extn.amlTenantId']", ["extn.amlTenantId"]],
    ['a["b.c"]["d"].e', ["a", "b.c", "d", "e"]],
    ['["say \\"hi\\""]', ['say "hi"']],
    ["https://example.com/roles", ["https://example.com/roles"]],
    ["/realm_access/roles", ["realm_access", "roles"]],
    ["/https:~1~1example.com~1roles", ["https://example.com/roles"]],
    ["/a~0b", ["a~b"]],
  ])("%s", (input, expected) => {
    expect(parseClaimPath(input)).toEqual(expected);
  });

  test.each(["", "a..b", ".a", "a.", "a[b]", 'a["b"', 'a["b"]c', "[]"])("%p is rejected", (input) => {
    expect(() => parseClaimPath(input)).toThrow(ClaimPathError);
  });
});

describe("reading and coercing claims", () => {
  const payload = { realm_access: { roles: ["admin", 7, ""] }, scp: "a b  c", list: ["t1"], two: ["t1", "t2"] };

  test("nested reads; missing paths are undefined", () => {
    expect(readClaim(payload, ["realm_access", "roles"])).toEqual(["admin", 7, ""]);
    expect(readClaim(payload, ["realm_access", "nope", "x"])).toBeUndefined();
    expect(readClaim(payload, ["scp", "length"])).toBeUndefined();
  });

  test("only own properties are reachable (no prototype walking)", () => {
    expect(readClaim(payload, ["__proto__"])).toBeUndefined();
    expect(readClaim(payload, ["constructor", "name"])).toBeUndefined();
    expect(readClaim(payload, ["realm_access", "roles", "length"])).toBeUndefined();
  });

  test("role lists keep non-empty strings; a string is one role unless the claim is space-delimited; other types give none", () => {
    expect(claimAsStringList(payload.realm_access.roles)).toEqual(["admin"]);
    expect(claimAsStringList(payload.scp, isSpaceDelimitedClaim(["scp"]))).toEqual(["a", "b", "c"]);
    expect(claimAsStringList("x admin", isSpaceDelimitedClaim(["realm_access", "scope"]))).toEqual(["x", "admin"]);
    // A single-valued roles claim holding a free-text name never yields a role from one of its words.
    expect(claimAsStringList("not admin", isSpaceDelimitedClaim(["roles"]))).toEqual(["not admin"]);
    expect(claimAsStringList("admin")).toEqual(["admin"]);
    expect(claimAsStringList("")).toEqual([]);
    expect(claimAsStringList(undefined)).toEqual([]);
    expect(claimAsStringList({ admin: true })).toEqual([]);
  });

  test("a tenant is a non-empty string or a one-element list of one", () => {
    expect(claimAsString("t1")).toBe("t1");
    expect(claimAsString(payload.list)).toBe("t1");
    expect(claimAsString(payload.two)).toBeNull();
    expect(claimAsString("")).toBeNull();
    expect(claimAsString(42)).toBeNull();
  });
});

describe("claim mapping on real IdP tokens", () => {
  let idp: TestIdp;
  beforeAll(async () => {
    idp = await startTestIdp({
      clients: [
        {
          clientId: "keycloak-style",
          clientSecret: "k",
          tenantId: "tenant-kc",
          claims: {
            realm_access: { roles: ["compliance_analyst", "offline_access"] },
            resource_access: { "aml-api": { roles: ["auditor"] } },
          },
        },
        {
          clientId: "namespaced",
          clientSecret: "n",
          claims: { "https://aml.example.com/roles": ["admin"], "https://aml.example.com/tenant": "tenant-ns" },
        },
        {
          clientId: "entra-style",
          clientSecret: "e",
          claims: { roles: ["auditor"], "extn.amlTenantId": "tenant-entra", oid: "0000-oid" },
        },
      ],
    });
  });
  afterAll(() => idp.stop());

  test("Keycloak: realm roles at realm_access.roles, client roles under resource_access", async () => {
    const token = await idp.clientCredentialsToken({ clientId: "keycloak-style" });
    const realm = await createOidcVerifier({ issuer: idp.issuer, rolesClaim: "realm_access.roles" }).verify(token);
    expect(realm).toMatchObject({ roles: ["compliance_analyst", "offline_access"], tenantId: "tenant-kc" });
    const client = await createOidcVerifier({ issuer: idp.issuer, rolesClaim: 'resource_access["aml-api"].roles' }).verify(token);
    expect(client.roles).toEqual(["auditor"]);
    // With the default path the nested roles are not found: no roles, never an error.
    expect((await createOidcVerifier({ issuer: idp.issuer }).verify(token)).roles).toEqual([]);
  });

  test("namespaced URL claims, in literal, bracket and JSON Pointer form", async () => {
    const token = await idp.clientCredentialsToken({ clientId: "namespaced" });
    for (const [rolesClaim, tenantClaim] of [
      ["https://aml.example.com/roles", "https://aml.example.com/tenant"],
      ['["https://aml.example.com/roles"]', '["https://aml.example.com/tenant"]'],
      ["/https:~1~1aml.example.com~1roles", "/https:~1~1aml.example.com~1tenant"],
    ] as const) {
      const principal = await createOidcVerifier({ issuer: idp.issuer, rolesClaim, tenantClaim }).verify(token);
      expect(principal).toMatchObject({ roles: ["admin"], tenantId: "tenant-ns" });
    }
  });

  test("Entra: a dotted claim name (extn.*) and the subject taken from oid", async () => {
    const token = await idp.clientCredentialsToken({ clientId: "entra-style" });
    const verifier = createOidcVerifier({ issuer: idp.issuer, tenantClaim: '["extn.amlTenantId"]', subjectClaim: "oid" });
    expect(await verifier.verify(token)).toMatchObject({ subject: "0000-oid", roles: ["auditor"], tenantId: "tenant-entra" });
  });
});

describe("looksLikeJwt", () => {
  test("real, unsigned and hostile JWTs look like JWTs; API keys and junk do not", async () => {
    const idp = await startTestIdp({ maxRotations: 0 });
    try {
      const tokens = hostileTokens(idp);
      expect(looksLikeJwt(await idp.clientCredentialsToken())).toBe(true);
      expect(looksLikeJwt(tokens.algNone())).toBe(true);
      expect(looksLikeJwt(await tokens.hs256WithPublicKeyPem())).toBe(true);
    } finally {
      await idp.stop();
    }
    // stop() really frees the port: nothing answers any more.
    await expect(fetch(`${idp.issuer}/.well-known/openid-configuration`)).rejects.toThrow();
    for (const credential of ["aml_live_4f9c2e1a7b", "", "a.b.c", "e30.e30.sig", "Bearer x.y.z", "eyJhbGciOiJSUzI1NiJ9.e30"]) {
      expect(looksLikeJwt(credential)).toBe(false);
    }
  });
});
