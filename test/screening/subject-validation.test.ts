import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Papa from "papaparse";
import { call, expectProblem, json } from "../helpers/api";
import { type ScreeningWorld, startScreeningWorld } from "./world";

/** Subject validation, message wording, the bulk-does-not-fit 429 and the bulk CSV's failed rows, over HTTP. */
let world: ScreeningWorld;
let capped: ScreeningWorld;
let zero: ScreeningWorld;
beforeAll(async () => {
  [world, capped, zero] = await Promise.all([startScreeningWorld(), startScreeningWorld({ quota: 3 }), startScreeningWorld({ quota: 0 })]);
});
afterAll(async () => {
  await Promise.all([world.close(), capped.close(), zero.close()]);
});

interface BulkBody {
  rows: Array<{ index: number; status: string; userReference: string | null; error: { code: string; detail: string; errors: Array<{ field: string; message: string }> } | null }>;
  summary: { total: number; screened: number; failed: number };
}

const NO_NAME = "must contain at least one letter or digit";

describe("a name must contain a letter or digit", () => {
  test.each([
    ["punctuation", "!!!"],
    ["a NUL", "\u0000"],
    ["a zero-width space", "\u200b"],
  ])("%s as fullName is 400 on fullName and nothing is charged", async (_label, fullName) => {
    const before = world.usedThisMonth();
    const problem = expectProblem(await world.post("/v1/screenings/check", { fullName }), 400, "VALIDATION_FAILED");
    expect(problem.errors?.map((e) => e.field)).toEqual(["fullName"]);
    expect(world.usedThisMonth()).toBe(before);
  });

  test("an alias without a letter is 400 on that alias", async () => {
    const problem = expectProblem(
      await world.post("/v1/screenings/check", { fullName: "Jane Roe", aliases: ["Janet Roe", "J. Roe", "---"] }),
      400,
      "VALIDATION_FAILED",
    );
    expect(problem.errors).toEqual([{ field: "aliases[2]", message: NO_NAME }]);
    expect(problem.detail).toContain(`aliases[2] ${NO_NAME}`);
  });

  test("a control character inside a name or reference is refused, saying why", async () => {
    const problem = expectProblem(
      await world.post("/v1/screenings/check", { fullName: "Jane\nRoe", userReference: "cust\u00001" }),
      400,
      "VALIDATION_FAILED",
    );
    expect(problem.errors?.map((e) => e.field)).toEqual(["fullName", "userReference"]);
    for (const e of problem.errors ?? []) expect(e.message).toContain("control characters");
  });

  test.each(["Владимир Путин", "محمد بن سلمان", "习近平", "김정은", "בנימין נתניהו", "नरेन्द्र मोदी", "Ολυμπία Παπαδοπούλου"])(
    "%s is screened",
    async (fullName) => {
      const res = await world.post("/v1/screenings/check", { fullName, aliases: [fullName] });
      expect(res.status).toBe(200);
      expect(json<{ subject: { fullName: string } }>(res).subject.fullName).toBe(fullName);
    },
  );

  test("in bulk, each bad row fails alone", async () => {
    const before = world.usedThisMonth();
    const body = json<BulkBody>(
      await world.post("/v1/screenings/bulk", [
        { fullName: "!!!", userReference: "row-0" },
        { fullName: "Jane Roe" },
        { fullName: "Ann Lee", aliases: ["A. Lee", "\u200b"], userReference: "row\u00002" },
        { fullName: "Ивана Петрова" },
      ]),
    );
    // A failed row echoes a valid reference only: one with a control character is not echoed.
    expect(body.rows.map((r) => r.userReference)).toEqual(["row-0", null, null, null]);
    expect(body.summary).toEqual({ total: 4, screened: 2, failed: 2 });
    expect(body.rows.map((r) => r.status)).toEqual(["failed", "screened", "failed", "screened"]);
    expect(body.rows[0]?.error?.errors).toEqual([{ field: "fullName", message: NO_NAME }]);
    expect(body.rows[0]?.error?.detail).toBe(`The subject is invalid: fullName ${NO_NAME}.`);
    expect(body.rows[2]?.error?.errors).toEqual([
      { field: "aliases[1]", message: NO_NAME },
      { field: "userReference", message: "must not contain control characters (such as NUL, tab, a line break or a bidirectional override)" },
    ]);
    expect(world.usedThisMonth()).toBe(before + 2);
  });
});

describe("userReference must not hold the subject's name: it is sent on webhooks", () => {
  const MESSAGE = "must not contain the subject's fullName or an alias: it is sent on webhooks, which never carry a name";

  test.each([
    ["Boris Quillfeather", "Boris Quillfeather"],
    ["Boris Quillfeather", "CUST-boris quillfeather-01"],
    ["Boris Quillfeather", "BORIS QUILLFEATHER"],
    ["Boris Quillfeather", "Böris Quillfeather"],
    ["Madonna", "madonna-01"],
  ])("check %p with userReference %p is 400 on userReference, nothing screened or charged", async (fullName, userReference) => {
    const before = world.usedThisMonth();
    const problem = expectProblem(await world.post("/v1/screenings/check", { fullName, userReference }), 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual([{ field: "userReference", message: MESSAGE }]);
    expect(problem.detail).toContain(`userReference ${MESSAGE}`);
    expect(world.usedThisMonth()).toBe(before);
  });

  test("an alias in the reference is refused as well", async () => {
    const res = await world.post("/v1/screenings/check", { fullName: "Boris Quillfeather", aliases: ["Bob Feather"], userReference: "crm/bob.feather" });
    expect(expectProblem(res, 400, "VALIDATION_FAILED").errors).toEqual([{ field: "userReference", message: MESSAGE }]);
  });

  test.each([
    ["Boris Quillfeather", "BQ-001"],
    ["Anna Smith", "ANNA-7"],
  ])("check %p with userReference %p is screened", async (fullName, userReference) => {
    const res = await world.post("/v1/screenings/check", { fullName, userReference });
    expect(res.status).toBe(200);
    expect(json<{ userReference: string }>(res).userReference).toBe(userReference);
  });

  test("in bulk, the row whose reference holds its name fails alone, saying why; the others are screened", async () => {
    const before = world.usedThisMonth();
    const body = json<BulkBody>(
      await world.post("/v1/screenings/bulk", [
        { fullName: "Anna Smith", userReference: "ANNA-7" },
        { fullName: "Boris Quillfeather", userReference: "cust-Boris-Quillfeather" },
        { fullName: "Jane Roe", userReference: "BQ-001" },
      ]),
    );
    expect(body.summary).toEqual({ total: 3, screened: 2, failed: 1 });
    expect(body.rows.map((r) => r.status)).toEqual(["screened", "failed", "screened"]);
    expect(body.rows[1]?.error).toEqual({
      code: "VALIDATION_FAILED",
      detail: `The subject is invalid: userReference ${MESSAGE}.`,
      errors: [{ field: "userReference", message: MESSAGE }],
    });
    expect(world.usedThisMonth()).toBe(before + 2);
  });
});

describe("validation wording", () => {
  test("a missing fullName is required, once", async () => {
    const problem = expectProblem(await world.post("/v1/screenings/check", {}), 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual([{ field: "fullName", message: "is required" }]);
    expect(problem.detail).toContain("fullName is required");
    expect(problem.detail).not.toContain("Invalid input");
  });

  test("a blank fullName does not repeat the field", async () => {
    const problem = expectProblem(await world.post("/v1/screenings/check", { fullName: "  " }), 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual([{ field: "fullName", message: "must not be empty" }]);
    expect(problem.detail).not.toContain("fullName fullName");
  });

  test("an empty check body says so", async () => {
    const problem = expectProblem(await world.post("/v1/screenings/check", ""), 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual([{ field: "", message: "is empty; send a JSON object" }]);
  });

  test("the JSON string \"\" is not taken for an empty body", async () => {
    const problem = expectProblem(await world.post("/v1/screenings/check", '""'), 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual([{ field: "", message: "must be a JSON object, not a string" }]);
  });

  test("an empty bulk body is one error, not two contradictory ones", async () => {
    const problem = expectProblem(await world.post("/v1/screenings/bulk", ""), 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual([{ field: "", message: "is empty; send a JSON array" }]);
    expect(problem.detail).toBe("Bulk request is invalid: body is empty; send a JSON array");
  });
});

describe("bulk CSV: a failed row shows the name it was sent with", () => {
  test("echoed as sent, formula-neutralised, controls visible, huge names cut; a non-string stays empty", async () => {
    const rows = [{ fullName: "=1+1\u0000" }, { fullName: "y".repeat(700) }, { fullName: 42 }, { fullName: "Jane Roe", dateOfBirth: "1961-02-30" }];
    const res = await world.post("/v1/screenings/bulk?format=csv", rows);
    expect(res.status).toBe(200);
    const parsed = Papa.parse<Record<string, string>>(res.text, { header: true, skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data.map((r) => r.status)).toEqual(["failed", "failed", "failed", "failed"]);
    expect(parsed.data.map((r) => r.fullName)).toEqual(["'=1+1\uFFFD", `${"y".repeat(500)}…`, "", "Jane Roe"]);
    expect(parsed.data[2]?.errorDetail).toBe("The subject is invalid: fullName must be a string, not a number.");
    expect(parsed.data[3]?.errorDetail).toContain("dateOfBirth must be");
  });
});

describe("quota 429 wording", () => {
  const nextMonthSeconds = () => {
    const now = new Date();
    return (Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000;
  };

  test("a bulk larger than the whole limit says it does not fit, and has no Retry-After", async () => {
    const res = await capped.post("/v1/screenings/bulk", [{ fullName: "A" }, { fullName: "B" }, { fullName: "C" }, { fullName: "D" }]);
    const problem = expectProblem(res, 429, "QUOTA_EXCEEDED");
    expect(problem.title).not.toContain("reached");
    expect(problem.detail).toContain("does not fit");
    expect(problem.detail).toContain("needs 4 screens");
    expect(problem.detail).toContain("used 0 of limit 3");
    expect(problem.detail).not.toContain("quota reached");
    expect(problem).toMatchObject({ used: 0, limit: 3, remaining: 3 });
    expect(res.headers.get("retry-after")).toBeNull();
    expect(capped.usedThisMonth()).toBe(0);
  });

  test("a bulk that fits after the reset says so, with Retry-After", async () => {
    expect((await capped.post("/v1/screenings/check", { fullName: "Jane Roe" })).status).toBe(200);
    expect((await capped.post("/v1/screenings/check", { fullName: "John Roe" })).status).toBe(200);
    const res = await capped.post("/v1/screenings/bulk", [{ fullName: "A" }, { fullName: "B" }]);
    const problem = expectProblem(res, 429, "QUOTA_EXCEEDED");
    expect(problem.detail).toContain("needs 2 screens but only 1 remains (used 2 of limit 3");
    expect(problem.detail).toContain("send at most 1 valid row now");
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(Math.abs(retryAfter - nextMonthSeconds())).toBeLessThan(30);
  });

  test("a single screen at the cap: quota reached, with Retry-After", async () => {
    expect((await capped.post("/v1/screenings/check", { fullName: "Jim Roe" })).status).toBe(200);
    const res = await capped.post("/v1/screenings/check", { fullName: "One More" });
    const problem = expectProblem(res, 429, "QUOTA_EXCEEDED");
    expect(problem.detail).toContain("Monthly screening quota reached: used 3 of limit 3");
    expect(Math.abs(Number(res.headers.get("retry-after")) - nextMonthSeconds())).toBeLessThan(30);
  });
});

describe("quota 429 wording at a monthly quota of 0", () => {
  test("a single check says the quota is 0 until an operator raises it, not to wait for the reset; no Retry-After", async () => {
    const res = await zero.post("/v1/screenings/check", { fullName: "Jane Roe" });
    const problem = expectProblem(res, 429, "QUOTA_EXCEEDED");
    expect(problem.detail).toBe(
      `This tenant's monthly screening quota is 0: no screen is allowed until an operator raises it (used 0 of limit 0 for ${String(problem.period)}). Reads and /v1/usage keep working.`,
    );
    expect(problem.detail).not.toContain("resets");
    expect(problem).toMatchObject({ used: 0, limit: 0, remaining: 0 });
    expect(res.headers.get("retry-after")).toBeNull();
  });

  test("a bulk says the same, and does not suggest splitting it", async () => {
    const res = await zero.post("/v1/screenings/bulk", [{ fullName: "Jane Roe" }, { fullName: "John Roe" }]);
    const problem = expectProblem(res, 429, "QUOTA_EXCEEDED");
    expect(problem.detail).toBe(
      `This request needs 2 screens (one per valid row), but this tenant's monthly screening quota is 0: no screen is allowed until an operator raises it (used 0 of limit 0 for ${String(problem.period)}). Nothing was screened. Reads and /v1/usage keep working.`,
    );
    expect(problem.detail).not.toContain("split");
    expect(problem).toMatchObject({ used: 0, limit: 0, remaining: 0 });
    expect(res.headers.get("retry-after")).toBeNull();
    expect(zero.usedThisMonth()).toBe(0);
  });
});

describe("a body naming thousands of unknown fields", () => {
  const manyUnknown = (n: number): Record<string, string> => {
    const subject: Record<string, string> = { fullName: "Jane Roe" };
    for (let i = 0; i < n; i++) subject[`x${i}`] = "y";
    return subject;
  };

  test("check lists 20 of them and counts the rest; the answer stays small", async () => {
    const res = await world.post("/v1/screenings/check", manyUnknown(5_000));
    const problem = expectProblem(res, 400, "VALIDATION_FAILED");
    expect(problem.errors).toHaveLength(21);
    expect(problem.errors?.slice(0, 20).every((e) => e.message === "is not a known field")).toBe(true);
    expect(problem.errors?.[20]).toEqual({ field: "", message: "has 4980 more issues, not listed; fix those above first" });
    expect(problem.detail).toContain("body has 4980 more issues, not listed");
    expect(res.text.length).toBeLessThan(4_000);
  });

  test("a bulk row lists 20 of them and counts the rest; the other rows screen", async () => {
    const res = await world.post("/v1/screenings/bulk", [manyUnknown(5_000), { fullName: "Ada Example" }]);
    expect(res.status).toBe(200);
    const body = json<BulkBody>(res);
    expect(body.summary).toEqual({ total: 2, screened: 1, failed: 1 });
    const errors = body.rows[0]?.error?.errors ?? [];
    expect(errors).toHaveLength(21);
    expect(errors[20]).toEqual({ field: "", message: "has 4980 more issues, not listed; fix those above first" });
    expect(body.rows[0]?.error?.detail).toContain("row has 4980 more issues, not listed");
    expect(res.text.length).toBeLessThan(8_000);
  });
});

describe("an object that names a member twice", () => {
  test.each([
    ["check", "/v1/screenings/check", '{"fullName":"Ada Example","fullName":"Aldous Quentrell"}', '"fullName" twice in one object;'],
    ["check, escaped", "/v1/screenings/check", '{"fullName":"Ada Example","full\\u004eame":"Aldous Quentrell"}', '"fullName" twice'],
    ["check, nested", "/v1/screenings/check", '{"fullName":"Ada Example","options":{"threshold":0.9,"threshold":0.5}}', "(at options.threshold)"],
    ["bulk", "/v1/screenings/bulk", '[{"fullName":"Ada Example"},{"fullName":"Ada Example","fullName":"Aldous Quentrell"}]', "(at [1].fullName)"],
  ])("%s is 400 MALFORMED_JSON naming it, and nothing is screened or charged", async (_label, path, body, named) => {
    const before = world.usedThisMonth();
    const problem = expectProblem(await world.post(path, body), 400, "MALFORMED_JSON");
    expect(problem.detail).toContain(named);
    expect(world.usedThisMonth()).toBe(before);
  });

  test("the same name in two objects, and repeated values, are fine", async () => {
    const res = await world.post("/v1/screenings/bulk", '[{"fullName":"Ada Example","userReference":"r-1"},{"fullName":"Ada Example","userReference":"r-1"}]');
    expect(res.status).toBe(200);
    expect(json<BulkBody>(res).summary).toEqual({ total: 2, screened: 2, failed: 0 });
  });

  test("without a credential it is 401, before the body is looked at", async () => {
    const res = await call(world.url, "/v1/screenings/check", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"fullName":"A","fullName":"B"}',
    });
    expect(res.status).toBe(401);
  });
});

describe("a string that escapes a lone surrogate", () => {
  // JSON lets "\ud800" escape half a surrogate pair; JSON.parse keeps it, and it came back from storage as U+FFFD.
  test.each([
    ["check", "/v1/screenings/check", '{"fullName":"Boris \\ud800 Quillfeather","userReference":"ref-1"}', "fullName escapes half"],
    ["check, reference", "/v1/screenings/check", '{"fullName":"Boris Quillfeather","userReference":"sur\\udc00"}', "userReference escapes half"],
    ["check, a name", "/v1/screenings/check", '{"fullName":"Boris Quillfeather","options":{"x\\uDBFF":1}}', "options.x\ufffd escapes half"],
    ["bulk", "/v1/screenings/bulk", '[{"fullName":"Ada Example"},{"fullName":"Ada Example","aliases":["A","B\\uD83D"]}]', "[1].aliases[1] escapes half"],
  ])("%s is 400 MALFORMED_JSON naming the field, and nothing is screened or charged", async (_label, path, body, named) => {
    const before = world.usedThisMonth();
    const problem = expectProblem(await world.post(path, body), 400, "MALFORMED_JSON");
    expect(problem.detail).toContain(named);
    expect(world.usedThisMonth()).toBe(before);
  });

  test("a whole pair, escaped or raw, and an escaped backslash before u are fine", async () => {
    const res = await world.post("/v1/screenings/check", '{"fullName":"Ada \\ud83d\\ude00 Example","userReference":"\\\\ud800 😀"}');
    expect(res.status).toBe(200);
    expect(json<{ userReference: string }>(res).userReference).toBe("\\ud800 😀");
  });
});

describe("a number too large to represent", () => {
  test("1e400 (Infinity once parsed) is 400 saying it is not finite", async () => {
    const before = world.usedThisMonth();
    const problem = expectProblem(await world.post("/v1/screenings/check", '{"fullName":"Ada Example","options":{"threshold":1e400}}'), 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual([{ field: "options.threshold", message: "must be a number that is finite, not one too large to represent" }]);
    expect(world.usedThisMonth()).toBe(before);
  });

  test("1e999 where a string is expected is named as a number too large, not as a string that is finite", async () => {
    const problem = expectProblem(await world.post("/v1/screenings/check", '{"fullName":1e999}'), 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual([{ field: "fullName", message: "must be a string, not a number too large to represent" }]);
  });
});

describe("a screening id whose percent-encoding is not UTF-8", () => {
  test.each([
    ["GET", "/v1/screenings/%FF"],
    ["POST", "/v1/screenings/%FF/rescreen"],
  ])("%s %s is 404 NOT_FOUND, as an unknown id", async (method, path) => {
    expectProblem(await call(world.url, path, { method, key: world.key }), 404, "NOT_FOUND");
  });
});

describe("a body that is not UTF-8", () => {
  // "Jürgen Müller" in Latin-1: ü is the single byte 0xFC, never valid UTF-8.
  const latin1 = Buffer.concat([Buffer.from('{"fullName":"J'), Buffer.from([0xfc]), Buffer.from("rgen M"), Buffer.from([0xfc]), Buffer.from('ller"}')]);
  const send = (body: Uint8Array, contentType: string | null, path = "/v1/screenings/check") =>
    call(world.url, path, { method: "POST", key: world.key, headers: contentType === null ? {} : { "content-type": contentType }, body });

  test.each([
    ["application/json; charset=iso-8859-1", "application/json; charset=iso-8859-1"],
    ["application/json", "application/json"],
    ["no Content-Type", null],
  ])("with %s is 400 MALFORMED_JSON, and nothing is screened or charged", async (_label, contentType) => {
    const before = world.usedThisMonth();
    const res = await send(latin1, contentType);
    expect(res.status).toBe(400);
    const problem = json<{ code: string; detail: string }>(res);
    expect(problem.code).toBe("MALFORMED_JSON");
    expect(problem.detail).toContain("not UTF-8");
    expect(world.usedThisMonth()).toBe(before);
  });

  test("a bulk body that is not UTF-8 is refused whole", async () => {
    const rows = Buffer.concat([Buffer.from("["), latin1, Buffer.from(',{"fullName":"Ada Example"}]')]);
    const before = world.usedThisMonth();
    const res = await send(rows, "application/json", "/v1/screenings/bulk");
    expect(res.status).toBe(400);
    expect(json<{ code: string }>(res).code).toBe("MALFORMED_JSON");
    expect(world.usedThisMonth()).toBe(before);
  });

  test("UTF-8 is read as UTF-8 whatever charset the Content-Type names, and a byte-order mark is dropped", async () => {
    const utf8 = Buffer.from(JSON.stringify({ fullName: "Jürgen Müller" }), "utf8");
    for (const [body, contentType] of [
      [utf8, "application/json; charset=iso-8859-1"],
      [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]), "application/json"],
    ] as const) {
      const res = await send(body, contentType);
      expect(res.status).toBe(200);
      expect(json<{ subject: { fullName: string } }>(res).subject.fullName).toBe("Jürgen Müller");
    }
  });

  test("without a credential it is 401, not a word about the body", async () => {
    const res = await call(world.url, "/v1/screenings/check", { method: "POST", headers: { "content-type": "application/json" }, body: latin1 });
    expect(res.status).toBe(401);
  });
});
