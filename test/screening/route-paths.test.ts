import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { literalRouteElsewhere } from "@/http/route-table";
import { call, expectProblem } from "../helpers/api";
import { startScreeningWorld, type ScreeningWorld } from "./world";

/**
 * Paths that are routes of their own and also fit a route with an id: "check" and "bulk" fit GET
 * /v1/screenings/{id}, "redeliver" GET /v1/webhooks/deliveries/{id}. Allow names the route the path
 * is, and a GET there is its 405, not a 404 for a screening whose id is "check".
 */
let world: ScreeningWorld;
beforeAll(async () => {
  world = await startScreeningWorld();
});
afterAll(() => world.close());

describe("a route's own path is not an id", () => {
  test.each([
    ["DELETE", "/v1/screenings/check", "POST"],
    ["GET", "/v1/screenings/check", "POST"],
    ["GET", "/v1/screenings/bulk", "POST"],
    ["PUT", "/v1/screenings/bulk", "POST"],
    ["GET", "/v1/webhooks/deliveries/redeliver", "POST"],
  ])("%s %s is 405 with Allow: %s", async (method, path, allow) => {
    const res = await call(world.url, path, { method, key: world.key });
    expectProblem(res, 405, "METHOD_NOT_ALLOWED", path);
    expect(res.headers.get("allow")).toBe(allow);
  });

  test("a screening id that is not there is still 404, without Allow", async () => {
    const path = "/v1/screenings/0190e9b4-6c1e-7d2a-9a51-3f0c8e2b1a77";
    const res = await world.get(path);
    expectProblem(res, 404, "NOT_FOUND", path);
    expect(res.headers.get("allow")).toBeNull();
  });

  test("DELETE on a screening id lists the methods of the id's routes", async () => {
    const path = "/v1/screenings/0190e9b4-6c1e-7d2a-9a51-3f0c8e2b1a77";
    const res = await call(world.url, path, { method: "DELETE", key: world.key });
    expectProblem(res, 405, "METHOD_NOT_ALLOWED", path);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("a literal route's own 404 stays its own", () => {
  // Today no literal route answers 404 on a path another method also serves; this keeps it so.
  const table = {
    entries: [
      { method: "GET", pattern: /^\/v1\/things\/?$/, literal: true },
      { method: "POST", pattern: /^\/v1\/things\/?$/, literal: true },
    ],
  };

  test.each(["GET", "HEAD", "POST"])("%s /v1/things is the request's own route: no 405", (method) => {
    expect(literalRouteElsewhere(table, method, "/v1/things")).toBeNull();
  });

  test("DELETE /v1/things is 405 with Allow: GET, HEAD, POST", () => {
    expect(literalRouteElsewhere(table, "DELETE", "/v1/things")?.headers).toEqual({ allow: "GET, HEAD, POST" });
  });
});
