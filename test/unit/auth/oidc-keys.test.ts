// Key rotation, the JWKS refetch rate limit and discovery failures, against the real IdP.
// The verifier gets a fake clock (so the 30 s limit is crossed without sleeping) and a counting fetch.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createOidcVerifier, type FetchLike, InvalidTokenError, type KeySetEvent, OidcDiscoveryError } from "@/auth/oidc";
import { FIRST_LOAD_RETRY_MAX_MS } from "@/auth/oidc-keys";
import { validClaims } from "../../helpers/hostile-tokens";
import { startTestIdp, type TestIdp } from "../../helpers/oidc-idp";

let idp: TestIdp;
let clock: number;
let requests: string[];

const jwksFetches = () => requests.filter((u) => u.endsWith("/connect/jwks")).length;
const discoveryFetches = () => requests.filter((u) => u.endsWith("/openid-configuration")).length;
const countingFetch: FetchLike = (url, init) => {
  requests.push(url);
  return fetch(url, init);
};
const newVerifier = (extra: Partial<Parameters<typeof createOidcVerifier>[0]> = {}) =>
  createOidcVerifier({ issuer: idp.issuer, fetch: countingFetch, now: () => clock, ...extra });
const reasonOf = (p: Promise<unknown>) => p.then(() => "accepted", (e: unknown) => (e as InvalidTokenError).reason);

beforeAll(async () => {
  idp = await startTestIdp({ maxRotations: 6 });
});
afterAll(() => idp.stop());
beforeEach(() => {
  clock = Date.now();
  requests = [];
});

describe("key rotation", () => {
  test("a new signing key is picked up without restarting the verifier; the old one keeps working while published", async () => {
    const verifier = newVerifier();
    const oldToken = await idp.clientCredentialsToken();
    await verifier.verify(oldToken);
    expect([discoveryFetches(), jwksFetches()]).toEqual([1, 1]);

    idp.rotateKeys({ keepOld: true });
    const newToken = await idp.clientCredentialsToken();
    expect(newToken.split(".")[0]).not.toBe(oldToken.split(".")[0]);

    // Within 30 s of the last fetch the unknown kid is refused without asking the IdP again...
    expect(await reasonOf(verifier.verify(newToken))).toBe("unknown_key");
    expect(jwksFetches()).toBe(1);
    // ...and after it, one refetch finds the new key.
    clock += 30_000;
    expect((await verifier.verify(newToken)).subject).toBe("aml-admin-cli");
    expect(await reasonOf(verifier.verify(oldToken))).toBe("accepted");
    expect([discoveryFetches(), jwksFetches()]).toEqual([1, 2]);
  });

  test("after a rotation that unpublishes the old key, tokens signed with it are refused", async () => {
    const verifier = newVerifier({ jwksRefreshMinIntervalMs: 0 });
    const oldToken = await idp.clientCredentialsToken();
    await verifier.verify(oldToken);
    idp.rotateKeys({ keepOld: false });
    await verifier.verify(await idp.clientCredentialsToken());
    // The old token's kid is now unknown: the verifier refetches (interval 0), still does not find it.
    expect(await reasonOf(verifier.verify(oldToken))).toBe("unknown_key");
    expect(jwksFetches()).toBe(3);
  });

  test("the periodic refresh drops a key the IdP stopped publishing, even if its kid was cached", async () => {
    const verifier = newVerifier({ jwksMaxAgeMs: 60_000 });
    const oldToken = await idp.clientCredentialsToken();
    await verifier.verify(oldToken);
    idp.rotateKeys({ keepOld: false });
    expect(await reasonOf(verifier.verify(oldToken))).toBe("accepted");
    clock += 61_000;
    expect(await reasonOf(verifier.verify(oldToken))).toBe("unknown_key");
  });
});

describe("an IdP down or hanging once keys have loaded", () => {
  /** The real IdP until `mode` says otherwise: "down" refuses at once, "hang" answers never (until fetch's timeout aborts it). */
  let mode: "up" | "down" | "hang" = "up";
  const hanging = new Set<string>();
  const unreliable: FetchLike = (url, init) => {
    requests.push(url);
    if (mode === "up") return fetch(url, init);
    if (mode === "down") return Promise.reject(new Error("connect ECONNREFUSED"));
    const id = `${url}#${requests.length}`;
    hanging.add(id);
    return new Promise((_resolve, reject) => {
      init?.signal?.addEventListener("abort", () => {
        hanging.delete(id);
        reject(new Error("The operation timed out."));
      });
    });
  };
  beforeEach(() => {
    mode = "up";
  });

  test("after one refresh has waited out a hanging IdP, later ones run behind while the keys in hand serve at once", async () => {
    const verifier = newVerifier({ fetch: unreliable, jwksMaxAgeMs: 60_000, fetchTimeoutMs: 200 });
    const token = await idp.clientCredentialsToken();
    await verifier.verify(token);
    mode = "hang";
    clock += 61_000;
    // The first refresh past maxAgeMs is waited for (a key the IdP withdrew is refused at once while
    // refreshes succeed); it times out, and the set in hand serves.
    expect(await reasonOf(verifier.verify(token))).toBe("accepted");
    expect(hanging.size).toBe(0);
    clock += 30_000;
    // The next refresh starts, still hanging, and the request does not wait for it.
    expect(await reasonOf(verifier.verify(token))).toBe("accepted");
    expect(hanging.size).toBe(1);
    mode = "up";
    await Bun.sleep(250);
    expect(hanging.size).toBe(0);
  });

  test("a token naming a key nobody published is 401 unknown_key, not 503, while the IdP is down", async () => {
    const verifier = newVerifier({ fetch: unreliable });
    await verifier.verify(await idp.clientCredentialsToken());
    mode = "down";
    clock += 30_000;
    const forged = await idp.mintRaw(validClaims(idp), { kid: "made-up" });
    const before = jwksFetches();
    expect(await reasonOf(verifier.verify(forged))).toBe("unknown_key");
    // It did ask the IdP (the kid might have been a rotation); the IdP being down is not the token's answer.
    expect(jwksFetches()).toBe(before + 1);
  });

  test("a made-up kid's failed refetch does not make the next periodic refresh run behind: a withdrawn key is still refused", async () => {
    const verifier = newVerifier({ fetch: unreliable, jwksMaxAgeMs: 60_000 });
    const oldToken = await idp.clientCredentialsToken();
    await verifier.verify(oldToken);
    mode = "down";
    clock += 30_000;
    expect(await reasonOf(verifier.verify(await idp.mintRaw(validClaims(idp), { kid: "made-up" })))).toBe("unknown_key");
    mode = "up";
    idp.rotateKeys({ keepOld: false });
    clock += 31_000;
    expect(await reasonOf(verifier.verify(oldToken))).toBe("unknown_key");
  });

  test("a key set document that never ends is read no further than its limit", async () => {
    let sent = 0;
    const endless: FetchLike = (url, init) => {
      if (!url.endsWith("/connect/jwks")) return countingFetch(url, init);
      const chunk = new Uint8Array(64 * 1024).fill(0x20);
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          sent += chunk.byteLength;
          controller.enqueue(chunk);
        },
      });
      return Promise.resolve(new Response(body, { headers: { "content-type": "application/json" } }));
    };
    const verifier = newVerifier({ fetch: endless });
    const error = await verifier.verify(await idp.clientCredentialsToken()).catch((e: unknown) => e);
    expect((error as InvalidTokenError).reason).toBe("discovery_failed");
    expect((error as InvalidTokenError).detail).toContain("JWKS document too large");
    expect(sent).toBeLessThan(2 * 1024 * 1024);
  });
});

describe("refetch rate limit", () => {
  test("a flood of unknown kids causes at most one JWKS fetch per interval", async () => {
    const verifier = newVerifier();
    await verifier.verify(await idp.clientCredentialsToken());
    let n = 0;
    const flood = async () => {
      for (let i = 0; i < 10; i++) {
        const token = await idp.mintRaw(validClaims(idp), { kid: `made-up-${n++}` });
        expect(await reasonOf(verifier.verify(token))).toBe("unknown_key");
      }
    };
    await flood();
    expect(jwksFetches()).toBe(1);
    clock += 29_999;
    await flood();
    expect(jwksFetches()).toBe(1);
    clock += 1;
    await flood();
    expect(jwksFetches()).toBe(2);
  });

  test("concurrent requests with a just-rotated kid share one refetch and all succeed", async () => {
    const verifier = newVerifier();
    await verifier.verify(await idp.clientCredentialsToken());
    idp.rotateKeys();
    const token = await idp.clientCredentialsToken();
    clock += 30_000;
    const results = await Promise.all(Array.from({ length: 8 }, () => verifier.verify(token)));
    expect(results.every((p) => p.subject === "aml-admin-cli")).toBe(true);
    expect(jwksFetches()).toBe(2);
  });
});

describe("discovery", () => {
  test("a discovery issuer that differs from the configured one is refused", async () => {
    // A trailing slash is the realistic misconfiguration: same URL, different issuer string.
    const verifier = createOidcVerifier({ issuer: `${idp.issuer}/`, fetch: countingFetch });
    const error = await verifier.verify(await idp.clientCredentialsToken()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect((error as InvalidTokenError).reason).toBe("discovery_failed");
    expect((error as InvalidTokenError).detail).toContain("does not match");
    await expect(verifier.discovery()).rejects.toBeInstanceOf(OidcDiscoveryError);
    expect(jwksFetches()).toBe(0);
  });

  test("a document pointing elsewhere under a forged issuer is refused too", async () => {
    const forging: FetchLike = async (url, init) => {
      const doc = (await (await fetch(url, init)).json()) as Record<string, unknown>;
      return Response.json({ ...doc, issuer: "https://idp.attacker.example" });
    };
    const verifier = createOidcVerifier({ issuer: idp.issuer, fetch: forging });
    expect(await reasonOf(verifier.verify(await idp.clientCredentialsToken()))).toBe("discovery_failed");
  });

  test("a failed first load is retried after a few seconds, not cached, and not on every request", async () => {
    let down = true;
    const flaky: FetchLike = (url, init) => {
      requests.push(url);
      return down ? Promise.reject(new Error("connect ECONNREFUSED")) : fetch(url, init);
    };
    const events: KeySetEvent[] = [];
    const verifier = createOidcVerifier({ issuer: idp.issuer, fetch: flaky, now: () => clock, onKeySetEvent: (e) => events.push(e) });
    const token = await idp.clientCredentialsToken();
    expect(await reasonOf(verifier.verify(token))).toBe("discovery_failed");
    // A flood while the IdP is down, from anyone (no credential is needed to send a bearer token):
    // the same failure, and no call to the IdP until the retry interval has passed.
    for (let i = 0; i < 50; i++) expect(await reasonOf(verifier.verify(token))).toBe("discovery_failed");
    expect(discoveryFetches()).toBe(1);
    clock += FIRST_LOAD_RETRY_MAX_MS;
    expect(await reasonOf(verifier.verify(token))).toBe("discovery_failed");
    expect(discoveryFetches()).toBe(2);
    // The IdP is back: the first request after the interval loads the keys.
    down = false;
    expect(await reasonOf(verifier.verify(token))).toBe("discovery_failed");
    clock += FIRST_LOAD_RETRY_MAX_MS;
    expect(await reasonOf(verifier.verify(token))).toBe("accepted");
    expect(discoveryFetches()).toBe(3);
    expect(events.map((e) => e.type)).toEqual(["jwks_fetch_failed", "jwks_fetch_failed", "jwks_fetched"]);
  });

  test("a key-set endpoint that fails while discovery works is throttled the same way", async () => {
    const brokenJwks: FetchLike = (url, init) => {
      requests.push(url);
      return url.endsWith("/connect/jwks") ? Promise.resolve(new Response("unavailable", { status: 503 })) : fetch(url, init);
    };
    const verifier = createOidcVerifier({ issuer: idp.issuer, fetch: brokenJwks, now: () => clock });
    const junk = await idp.mintRaw(validClaims(idp), { kid: "whatever" });
    for (let i = 0; i < 40; i++) expect(await reasonOf(verifier.verify(junk))).toBe("discovery_failed");
    expect([discoveryFetches(), jwksFetches()]).toEqual([1, 1]);
  });

  test("an unreachable IdP (closed port) is discovery_failed, and HTTP errors are too", async () => {
    const closed = createOidcVerifier({ issuer: "http://127.0.0.1:9", fetchTimeoutMs: 2_000 });
    expect(await reasonOf(closed.verify(await idp.clientCredentialsToken()))).toBe("discovery_failed");
    const notFound = createOidcVerifier({ issuer: `${idp.issuer}/no-such-realm` });
    expect(await reasonOf(notFound.verify(await idp.clientCredentialsToken()))).toBe("discovery_failed");
  });

  test("a malformed token is refused before any network call", async () => {
    const verifier = newVerifier();
    expect(await reasonOf(verifier.verify("aml_live_abc"))).toBe("malformed");
    expect(requests).toEqual([]);
  });
});
