// The IdP rotates its signing key while the appliance runs: tokens under the new kid are accepted
// without a restart, because an unknown kid triggers a JWKS refetch (rate limit set to 0 here).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { call, type OidcStack, startOidcStack } from "./harness";

let stack: OidcStack;

beforeAll(async () => {
  stack = await startOidcStack({
    idp: { maxRotations: 2 },
    env: { AML_OIDC_JWKS_REFRESH_MIN_INTERVAL_MS: "0" },
  });
});
afterAll(() => stack?.close());

const kidOf = (token: string): unknown =>
  (JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString("utf8")) as Record<string, unknown>)["kid"];

async function listStatus(token: string): Promise<number> {
  return (await call(stack.server.url, "GET", "/v1/tenants", { credential: { bearer: token } })).status;
}

test("a rotated signing key is picked up without restarting the appliance", async () => {
  const before = await stack.idp.clientCredentialsToken();
  expect(await listStatus(before)).toBe(200);
  const fetchesAfterFirst = stack.idp.jwksRequests();
  expect(fetchesAfterFirst).toBeGreaterThanOrEqual(1);
  // Cached: a second token under the same kid needs no refetch.
  expect(await listStatus(await stack.idp.clientCredentialsToken())).toBe(200);
  expect(stack.idp.jwksRequests()).toBe(fetchesAfterFirst);

  const next = stack.idp.rotateKeys({ keepOld: true });
  const rotated = await stack.idp.clientCredentialsToken();
  expect(kidOf(rotated)).toBe(next.kid);
  expect(kidOf(rotated)).not.toBe(kidOf(before));
  expect(await listStatus(rotated)).toBe(200);
  expect(stack.idp.jwksRequests()).toBeGreaterThan(fetchesAfterFirst);
  // The old key is still published, so tokens issued before the rotation keep working.
  expect(await listStatus(before)).toBe(200);

  // A hard rotation (old key withdrawn at once) is picked up the same way.
  const third = stack.idp.rotateKeys({ keepOld: false });
  const afterHard = await stack.idp.clientCredentialsToken();
  expect(kidOf(afterHard)).toBe(third.kid);
  expect(await listStatus(afterHard)).toBe(200);
});
