// Tokens issued by a real OpenID Provider (oidc-provider on loopback) through both flows of the
// spec verify, and the claims land in the principal as the auth guard expects.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createOidcVerifier, InvalidTokenError, type OidcVerifier } from "@/auth/oidc";
import { ADMIN_CONSOLE_CLIENT_ID, startTestIdp, type TestIdp } from "../../helpers/oidc-idp";
import { pkceLogin } from "../../helpers/pkce-login";

let idp: TestIdp;
let verifier: OidcVerifier;

beforeAll(async () => {
  idp = await startTestIdp({
    clients: [
      { clientId: "analyst-svc", clientSecret: "s1", roles: ["compliance_analyst"], tenantId: "tenant-a" },
      { clientId: "auditor-svc", clientSecret: "s2", roles: ["auditor"], tenantId: "tenant-b" },
      { clientId: "no-roles-svc", clientSecret: "s3" },
    ],
    accounts: {
      "alice-admin": { roles: ["admin"], email: "alice@example.com" },
      "bob-analyst": { roles: ["compliance_analyst"], tenantId: "tenant-a" },
    },
  });
  verifier = createOidcVerifier({ issuer: idp.issuer });
});
afterAll(() => idp.stop());

describe("client_credentials (machine-to-machine)", () => {
  test("the aml-admin-cli token verifies as an admin without tenant", async () => {
    const principal = await verifier.verify(await idp.clientCredentialsToken());
    expect(principal.subject).toBe("aml-admin-cli");
    expect(principal.roles).toEqual(["admin"]);
    expect(principal.tenantId).toBeNull();
    expect(principal.clientId).toBe("aml-admin-cli");
    expect(principal.claims["aud"]).toBe("aml-api");
    expect(principal.expiresAt.getTime()).toBeGreaterThan(Date.now());
  });

  test("roles and tenant come from the client's registration", async () => {
    const analyst = await verifier.verify(await idp.clientCredentialsToken({ clientId: "analyst-svc" }));
    expect(analyst).toMatchObject({ subject: "analyst-svc", roles: ["compliance_analyst"], tenantId: "tenant-a" });
    const auditor = await verifier.verify(await idp.clientCredentialsToken({ clientId: "auditor-svc" }));
    expect(auditor).toMatchObject({ roles: ["auditor"], tenantId: "tenant-b" });
  });

  test("a token without a roles claim gives no roles rather than an error", async () => {
    const principal = await verifier.verify(await idp.clientCredentialsToken({ clientId: "no-roles-svc" }));
    expect(principal.roles).toEqual([]);
    expect(principal.tenantId).toBeNull();
  });

  test("the IdP refuses a wrong client secret (the helper surfaces it)", async () => {
    await expect(idp.clientCredentialsToken({ clientSecret: "nope" })).rejects.toThrow(/invalid_client/);
  });
});

describe("authorization_code + PKCE (human admin)", () => {
  test("a console login token verifies with the account's roles and tenant", async () => {
    const admin = await verifier.verify(await idp.authCodePkceToken({ accountId: "alice-admin" }));
    expect(admin).toMatchObject({ subject: "alice-admin", roles: ["admin"], tenantId: null, clientId: ADMIN_CONSOLE_CLIENT_ID });
    const analyst = await verifier.verify(await idp.authCodePkceToken({ accountId: "bob-analyst" }));
    expect(analyst).toMatchObject({ subject: "bob-analyst", roles: ["compliance_analyst"], tenantId: "tenant-a" });
  });

  test("the login goes through the spec's endpoints and returns ID and refresh tokens too", async () => {
    const result = await pkceLogin({
      issuer: idp.issuer,
      clientId: ADMIN_CONSOLE_CLIENT_ID,
      redirectUri: idp.consoleRedirectUri,
      loginHint: "alice-admin",
    });
    expect(result.idToken).toBeString();
    expect(result.refreshToken).toBeString();
    expect(result.hops).toBeGreaterThan(2);
    const meta = await verifier.discovery();
    expect(meta.authorization_endpoint).toBe(`${idp.issuer}/connect/authorize`);
    expect(meta.token_endpoint).toBe(`${idp.issuer}/connect/token`);
  });

  test("the ID token is not accepted as an access token (audience is the client, not aml-api)", async () => {
    const { idToken } = await pkceLogin({
      issuer: idp.issuer,
      clientId: ADMIN_CONSOLE_CLIENT_ID,
      redirectUri: idp.consoleRedirectUri,
      loginHint: "alice-admin",
    });
    const error = await verifier.verify(idToken ?? "").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect((error as InvalidTokenError).reason).toBe("wrong_audience");
  });

  test("the IdP insists on PKCE for the public console client", async () => {
    const attempt = pkceLogin({
      issuer: idp.issuer,
      clientId: ADMIN_CONSOLE_CLIENT_ID,
      redirectUri: idp.consoleRedirectUri,
      loginHint: "alice-admin",
      withoutPkce: true,
    });
    await expect(attempt).rejects.toThrow(/invalid_request: .*requires PKCE/);
  });
});

describe("verifier configuration", () => {
  test("a different expected audience refuses the same real token", async () => {
    const other = createOidcVerifier({ issuer: idp.issuer, audience: "another-api" });
    const error = await other.verify(await idp.clientCredentialsToken()).catch((e: unknown) => e);
    expect((error as InvalidTokenError).reason).toBe("wrong_audience");
  });

  test("a verifier restricted to ES256 refuses the IdP's RS256 tokens", async () => {
    const esOnly = createOidcVerifier({ issuer: idp.issuer, allowedAlgorithms: ["ES256"] });
    const error = await esOnly.verify(await idp.clientCredentialsToken()).catch((e: unknown) => e);
    expect((error as InvalidTokenError).reason).toBe("unsupported_alg");
  });

  test("symmetric or 'none' algorithms cannot be configured", () => {
    expect(() => createOidcVerifier({ issuer: idp.issuer, allowedAlgorithms: ["RS256", "HS256"] })).toThrow(/allowedAlgorithms/);
    expect(() => createOidcVerifier({ issuer: idp.issuer, allowedAlgorithms: ["none"] })).toThrow(/allowedAlgorithms/);
    expect(() => createOidcVerifier({ issuer: idp.issuer, allowedAlgorithms: [] })).toThrow(/allowedAlgorithms/);
  });

  test("invalid issuer, claim path or numbers fail at creation, not per request", () => {
    expect(() => createOidcVerifier({ issuer: "not a url" })).toThrow(/issuer/);
    expect(() => createOidcVerifier({ issuer: idp.issuer, rolesClaim: 'a["unterminated' })).toThrow(/rolesClaim/);
    expect(() => createOidcVerifier({ issuer: idp.issuer, clockSkewSeconds: -1 })).toThrow(/clockSkewSeconds/);
  });
});
