import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectProblem, json, UUID_RE } from "../helpers/api";
import { startScreeningWorld, type ScreeningWorld } from "./world";

interface Screening {
  id: string;
  createdAt: string;
  correlationId: string;
  screeningCorrelationId: string | null;
  userReference: string | null;
  subject: { fullName: string; nationality: string | null; aliases: string[] };
  options: { threshold: number; lists: string[] };
  listVersions: { snapshotId: string; sources: Array<{ source: string; versionId: string }>; notLoaded: string[] };
  decision: string;
  isMatch: boolean;
  matchCount: number;
  sourceLists: string[];
  classification: string | null;
  matches: Array<{ externalId: string; matchedName: string; explanation: Record<string, unknown> }>;
  suppressedMatches: unknown[];
  adverseMediaStatus: string;
  rescreenOf: string | null;
  origin: string;
}

let world: ScreeningWorld;
beforeAll(async () => {
  world = await startScreeningWorld();
});
afterAll(() => world.close());

describe("POST /v1/screenings/check", () => {
  test("a listed fictional name is found with its explanation and the list version it read", async () => {
    const res = await world.post(
      "/v1/screenings/check",
      { fullName: "Dmitri Korvalev", dateOfBirth: "1961-03", nationality: "Russia", userReference: "cust-001" },
      { headers: { "x-correlation-id": "corr-check-1" } },
    );
    expect(res.status).toBe(200);
    const body = json<Screening>(res);
    expect(body.id).toMatch(UUID_RE);
    expect(res.headers.get("location")).toBe(`/v1/screenings/${body.id}`);
    expect(["Match", "Review"]).toContain(body.decision);
    expect(body.isMatch).toBe(true);
    expect(body.matches[0]?.externalId).toBe("90001");
    expect(body.matches[0]?.explanation.nameScore).toBeNumber();
    expect(body.sourceLists).toEqual(["OFAC"]);
    expect(body.classification).toBe("sanctions");
    expect(body.subject.nationality).toBe("RU");
    expect(body.correlationId).toBe("corr-check-1");
    expect(body.screeningCorrelationId).toBe("corr-check-1");
    // Only OFAC is imported here: the other selected lists were not checked, and the record says so.
    expect(body.listVersions.sources.map((s) => s.source)).toEqual(["OFAC"]);
    expect(body.listVersions.notLoaded).toEqual(["EU", "UK", "UN", "WIKIDATA"]);
    expect(json<Screening>(await world.get(`/v1/screenings/${body.id}`)).listVersions.notLoaded).toEqual(["EU", "UK", "UN", "WIKIDATA"]);
    expect(body.adverseMediaStatus).toBe("Skipped");
    expect(body.origin).toBe("check");
    expect(body.rescreenOf).toBeNull();
  });

  test("an unrelated name is Clear", async () => {
    const body = json<Screening>(await world.post("/v1/screenings/check", { fullName: "Penelope Whitcombe-Arden" }));
    expect(body.decision).toBe("Clear");
    expect(body.isMatch).toBe(false);
    expect(body.matchCount).toBe(0);
    expect(body.matches).toEqual([]);
    expect(body.classification).toBeNull();
  });

  test("an alias of the subject is screened too", async () => {
    const body = json<Screening>(await world.post("/v1/screenings/check", { fullName: "Harold Smythe", aliases: ["Ottoline Vanderloop"] }));
    expect(body.matches[0]?.externalId).toBe("90004");
  });

  test("adverse media requested with no provider is Unavailable, never Ok", async () => {
    const a = json<Screening>(await world.post("/v1/screenings/check", { fullName: "Jane Roe", options: { adverseMedia: true } }));
    expect(a.adverseMediaStatus).toBe("Unavailable");
    const full = json<Screening>(await world.post("/v1/screenings/check", { fullName: "Jane Roe", options: { coveragePreset: "full" } }));
    expect(full.adverseMediaStatus).toBe("Unavailable");
  });

  test("per-request options stricter than the profile apply and are stored resolved", async () => {
    const body = json<Screening>(
      await world.post("/v1/screenings/check", { fullName: "Dmitri Korvalev", options: { threshold: 0.75, candidateLimit: 400 } }),
    );
    expect(body.options.threshold).toBe(0.75);
    expect(body.options).toMatchObject({ candidateLimit: 400, lists: ["OFAC", "EU", "UK", "UN", "WIKIDATA"] });
    expect(body.options).not.toHaveProperty("looseningAllowed");
  });
});

describe("validation", () => {
  test("unknown body fields are refused with 400 naming them", async () => {
    const problem = expectProblem(await world.post("/v1/screenings/check", { fullName: "A B", tenantId: "x", extra: 1 }), 400, "VALIDATION_FAILED");
    expect(problem.errors?.map((e) => e.field).sort()).toEqual(["extra", "tenantId"]);
  });

  test("options out of range are refused with 400 naming the field", async () => {
    const problem = expectProblem(
      await world.post("/v1/screenings/check", { fullName: "A B", options: { threshold: 1.5, resultCap: 0 } }),
      400,
      "VALIDATION_FAILED",
    );
    expect(problem.errors?.map((e) => e.field).sort()).toEqual(["options.resultCap", "options.threshold"]);
  });

  test.each([
    ["missing fullName", {}, "fullName"],
    ["blank fullName", { fullName: "   " }, "fullName"],
    ["fullName over 500 characters", { fullName: "x".repeat(501) }, "fullName"],
    ["an impossible date", { fullName: "A B", dateOfBirth: "2023-02-30" }, "dateOfBirth"],
    ["a day-first date", { fullName: "A B", dateOfBirth: "12/03/1961" }, "dateOfBirth"],
    ["a future year", { fullName: "A B", dateOfBirth: "2999" }, "dateOfBirth"],
    ["an unknown country", { fullName: "A B", nationality: "Atlantis" }, "nationality"],
    ["21 aliases", { fullName: "A B", aliases: Array.from({ length: 21 }, (_, i) => `Alias ${i}`) }, "aliases"],
    ["userReference over 200 characters", { fullName: "A B", userReference: "r".repeat(201) }, "userReference"],
  ])("%s is refused with 400", async (_label, body, field) => {
    const problem = expectProblem(await world.post("/v1/screenings/check", body), 400, "VALIDATION_FAILED");
    expect(problem.errors?.some((e) => e.field === field)).toBe(true);
  });

  test("partial dates and country names are accepted", async () => {
    for (const dateOfBirth of ["1961", "1961-03", "1961-03-12"]) {
      expect((await world.post("/v1/screenings/check", { fullName: "A B", dateOfBirth, nationality: "United Kingdom" })).status).toBe(200);
    }
  });

  test("an ISO alpha-3 nationality is stored as its alpha-2 code; an unassigned one is 400", async () => {
    for (const [sent, stored] of [["DEU", "DE"], ["gbr", "GB"], ["PRK", "KP"], ["XKX", "XK"]] as const) {
      const response = await world.post("/v1/screenings/check", { fullName: "A B", nationality: sent });
      expect(response.status).toBe(200);
      expect(json<Screening>(response).subject.nationality).toBe(stored);
    }
    const problem = expectProblem(await world.post("/v1/screenings/check", { fullName: "A B", nationality: "GBX" }), 400, "VALIDATION_FAILED");
    expect(problem.errors?.find((e) => e.field === "nationality")?.message).toContain("alpha-3");
  });

  test("malformed JSON is 400 with the parser's reason", async () => {
    const body = expectProblem(await world.post("/v1/screenings/check", "{not json"), 400, "MALFORMED_JSON");
    expect(body.detail).toStartWith("The request body is not valid JSON: ");
  });
});

describe("GET /v1/screenings/{id}", () => {
  test("reads the full record back, identical to the check response", async () => {
    const created = json<Screening>(await world.post("/v1/screenings/check", { fullName: "Aldous Quentrell", userReference: "cust-read" }));
    const read = await world.get(`/v1/screenings/${created.id}`);
    expect(read.status).toBe(200);
    const body = json<Screening>(read);
    expect({ ...body, correlationId: "" }).toEqual({ ...created, correlationId: "" });
    expect(body.correlationId).toBe(read.headers.get("x-correlation-id") ?? "");
  });

  test("an unknown or malformed id is 404", async () => {
    expectProblem(await world.get("/v1/screenings/01900000-0000-7000-8000-000000000000"), 404, "NOT_FOUND");
    expectProblem(await world.get("/v1/screenings/not-a-uuid"), 404, "NOT_FOUND");
    // However long: an id that names nothing is never a 400.
    expectProblem(await world.get(`/v1/screenings/${"x".repeat(300)}`), 404, "NOT_FOUND");
  });
});
