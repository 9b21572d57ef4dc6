import { afterAll, beforeAll, describe, expect, test } from "bun:test";
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
