// The identity provider unreachable before the appliance ever loaded its keys: a bearer token cannot
// be checked, which is not the same as a bad token. The caller gets 503 NOT_READY (retry), not 401
// (throw the token away), and API keys keep working.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { servedPaths } from "../helpers/openapi";
import { call, type OidcStack, startOidcStack } from "./harness";

let stack: OidcStack;
let token: string;

beforeAll(async () => {
  stack = await startOidcStack();
  // A real token from the real IdP, then the IdP goes away before the appliance asked it for keys.
  token = await stack.token();
  await stack.idp.stop();
});
afterAll(() => stack?.close());

test("a bearer token the appliance cannot check is 503 NOT_READY, not 401", async () => {
  const res = await call(stack.server.url, "GET", "/v1/tenants", { credential: { bearer: token } });
  expect(res.status).toBe(503);
  expect(res.headers.get("content-type")).toStartWith("application/problem+json");
  expect(res.body).toMatchObject({ status: 503, code: "NOT_READY" });
  expect(String(res.body.detail)).toContain("identity provider");
});

test("API keys keep working while the identity provider is down", async () => {
  const res = await call(stack.server.url, "GET", "/v1/usage", { credential: { apiKey: stack.seed.apiKey } });
  expect(res.status).toBe(200);
});

test("a token that is not a JWT at all is still 401", async () => {
  const res = await call(stack.server.url, "GET", "/v1/usage", { credential: { bearer: "not-a-token" } });
  expect(res.status).toBe(401);
});

test("the OpenAPI document lists the 503 on authenticated routes", async () => {
  const paths = await servedPaths(stack.server.url);
  expect(Object.keys(paths["/v1/usage"]?.get?.responses ?? {})).toContain("503");
  expect(Object.keys(paths["/v1/tenants"]?.get?.responses ?? {})).toContain("503");
});
