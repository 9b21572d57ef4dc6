import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { ServiceError } from "@/errors";
import { parseInput, zodIssues } from "@/lib/validate";
import { normaliseName } from "@/matching/normalise";
import { bulkCsv, displaySentName } from "@/screening/bulk-csv";
import { type BulkResult, type BulkRowSummary, failedRow } from "@/screening/bulk";
import { CheckInput } from "@/screening/check";
import { CONTROL_MESSAGE } from "@/lib/control-characters";
import { hasNameToken, NO_NAME_MESSAGE, referenceHoldsName, Subject } from "@/screening/subject";
import { secondsUntilNextUtcMonth } from "@/lib/clock";

/** Real names, one or two per script: every one must keep passing. */
const REAL_NAMES = [
  "Jane Roe",
  "José Müller-Łukasiewicz",
  "Nguyễn Tấn Dũng",
  "O'Brien",
  "Владимир Путин",
  "Олександр Зінченко",
  "محمد بن سلمان",
  "محمود احمدی‌نژاد",
  "习近平",
  "安倍晋三",
  "やまだ たろう",
  "김정은",
  "Ολυμπία Παπαδοπούλου",
  "בנימין נתניהו",
  "नरेन्द्र मोदी",
  "ประยุทธ์ จันทร์โอชา",
  "მიხეილ სააკაშვილი",
  "Նիկոլ Փաշինյան",
  "አብይ አህመድ",
  "மு. கருணாநிதி",
  "Agent 47",
];

const NOT_NAMES = ["!!!", "-", "...", "\u200b", "\u200b\u200c\u200d", "\u0301", "ـــ", "·", "🙂", "★☆", "?? ??", "«»"];

function issues(value: unknown, schema: z.ZodType = Subject) {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : zodIssues(parsed.error);
}

describe("names: at least one letter or digit, by the matcher's own normalisation", () => {
  test.each(REAL_NAMES)("%s passes", (name) => {
    expect(hasNameToken(name)).toBe(true);
    expect(normaliseName(name).tokens.length).toBeGreaterThan(0);
    expect(issues({ fullName: name, aliases: [name] })).toEqual([]);
  });

  test.each(NOT_NAMES)("%p is refused on fullName and per alias", (text) => {
    expect(hasNameToken(text)).toBe(false);
    expect(issues({ fullName: text })).toEqual([{ field: "fullName", message: NO_NAME_MESSAGE }]);
    expect(issues({ fullName: "Jane Roe", aliases: ["Janet Roe", "J. Roe", text] })).toEqual([{ field: "aliases[2]", message: NO_NAME_MESSAGE }]);
  });

  test("no accepted name leaves the matcher without a token, and the ASCII shortcut agrees with normaliseName", () => {
    // Every BMP code point alone, after an ASCII letter and before a digit: the shortcut (an ASCII
    // letter or digit is enough) must never accept what normalisation leaves empty.
    for (let cp = 0; cp <= 0xffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCharCode(cp);
      for (const text of [c, `a${c}`, `${c}7`, `Z${c}\u0301`]) {
        if (hasNameToken(text) && normaliseName(text).tokens.length === 0) throw new Error(`accepted ${JSON.stringify(text)} without a token`);
      }
      if (/[\p{L}\p{N}]/u.test(c) && normaliseName(c).tokens.length > 0) expect(hasNameToken(c)).toBe(true);
    }
  });
});

describe("control characters", () => {
  test("the marks right-to-left names carry are no control: LRM, RLM and ALM pass", () => {
    for (const name of ["\u200fمحمد بن سلمان", "محمد\u200e Ali", "\u061cمحمد"]) expect(issues({ fullName: name })).toEqual([]);
  });

  test.each([
    "\u0000",
    "Jane\u0000Roe",
    "Jane\tRoe",
    "Jane\nRoe",
    "Jane\u001bRoe",
    "Jane\u007fRoe",
    "Jane\u0085Roe",
    "Jane\u009fRoe",
    // A line separator, and the bidirectional controls that show one text as another in an export.
    "Jane\u2028Roe",
    "Jane\u2029Roe",
    "\u202eeoR enaJ",
    "Jane \u202aRoe\u202c",
    "Jane \u2066Roe\u2069",
    "Jane\u2068Roe",
  ])(
    "%p is refused with one clear message",
    (text) => {
      expect(issues({ fullName: text })).toEqual([{ field: "fullName", message: CONTROL_MESSAGE }]);
      expect(issues({ fullName: "Jane Roe", aliases: [text] })).toEqual([{ field: "aliases[0]", message: CONTROL_MESSAGE }]);
      expect(issues({ fullName: "Jane Roe", userReference: `ref-${text}` })).toEqual([{ field: "userReference", message: CONTROL_MESSAGE }]);
    },
  );

  test("surrounding whitespace is trimmed, not refused", () => {
    const parsed = Subject.parse({ fullName: "\tJane Roe\r\n", userReference: " cust-1\n" });
    expect(parsed.fullName).toBe("Jane Roe");
    expect(parsed.userReference).toBe("cust-1");
  });

  test("dateOfBirth and nationality refuse them by their own format", () => {
    expect(issues({ fullName: "Jane Roe", dateOfBirth: "1961\u0000" }).map((i) => i.field)).toEqual(["dateOfBirth"]);
    expect(issues({ fullName: "Jane Roe", nationality: "G\u0000B" }).map((i) => i.field)).toEqual(["nationality"]);
  });
});

describe("validation wording: one message per problem, never repeating the field", () => {
  test("missing, blank, too long, wrong type", () => {
    expect(issues({})).toEqual([{ field: "fullName", message: "is required" }]);
    expect(issues({ fullName: "   " })).toEqual([{ field: "fullName", message: "must not be empty" }]);
    expect(issues({ fullName: "x".repeat(501) })).toEqual([{ field: "fullName", message: "must be at most 500 characters" }]);
    expect(issues({ fullName: 5 })).toEqual([{ field: "fullName", message: "must be a string, not a number" }]);
    expect(issues({ fullName: "A B", aliases: "C D" })).toEqual([{ field: "aliases", message: "must be an array, not a string" }]);
    expect(issues({ fullName: "A B", aliases: ["C D", ""] })).toEqual([{ field: "aliases[1]", message: "must not be empty" }]);
    expect(issues({ fullName: "A B", aliases: [null] })).toEqual([{ field: "aliases[0]", message: "must be a string, not null" }]);
    expect(issues({ fullName: "A B", userReference: "" })).toEqual([{ field: "userReference", message: "must not be empty" }]);
  });

  test("the body itself: empty, or not an object", () => {
    expect(issues("", CheckInput)).toEqual([{ field: "", message: "must be a JSON object, not a string" }]);
    expect(issues(undefined, CheckInput)).toEqual([{ field: "", message: "is empty; send a JSON object" }]);
    expect(issues([], CheckInput)).toEqual([{ field: "", message: "must be a JSON object, not an array" }]);
    expect(issues(42, Subject)).toEqual([{ field: "", message: "must be a JSON object, not a number" }]);
  });

  test("a value of the wrong type gets only the type problem, not its checks as well", () => {
    const Rows = z.array(z.unknown()).min(1, "must hold at least one subject");
    expect(issues(undefined, Rows)).toEqual([{ field: "", message: "is empty; send a JSON array" }]);
    expect(issues([], Rows)).toEqual([{ field: "", message: "must hold at least one subject" }]);
  });

  test("a missing enum or literal is required; schemas' own messages are kept", () => {
    const Shape = z.object({ plan: z.enum(["a", "b"]), n: z.number().min(1, "must be at least 1") }).strict();
    expect(issues({ n: 0 }, Shape)).toEqual([
      { field: "plan", message: "is required" },
      { field: "n", message: "must be at least 1" },
    ]);
    expect(issues({ plan: "a", n: 1, extra: true }, Shape)).toEqual([{ field: "extra", message: "is not a known field" }]);
  });

  test("range, choice and coerced-number problems read in the field's terms, not zod's defaults", () => {
    const Shape = z.object({
      take: z.coerce.number().int().min(1).max(500).optional(),
      threshold: z.number().min(0.5).max(1).optional(),
      above: z.number().gt(0).optional(),
      code: z.string().min(2).max(3).optional(),
      lists: z.array(z.string()).min(1).max(2).optional(),
      plan: z.enum(["basic", "pro"]).optional(),
    });
    expect(issues({ take: "abc" }, Shape)).toEqual([{ field: "take", message: "must be a number" }]);
    expect(issues({ take: "0" }, Shape)).toEqual([{ field: "take", message: "must be at least 1" }]);
    expect(issues({ take: "501" }, Shape)).toEqual([{ field: "take", message: "must be at most 500" }]);
    expect(issues({ take: "1.5" }, Shape)).toEqual([{ field: "take", message: "must be an integer, not 1.5" }]);
    // int() checks the safe-integer range beside the schema's own bound: only the tighter is listed.
    expect(issues({ take: "1e23" }, Shape)).toEqual([{ field: "take", message: "must be at most 500" }]);
    expect(issues({ take: "-1e23" }, Shape)).toEqual([{ field: "take", message: "must be at least 1" }]);
    expect(issues({ threshold: 5 }, Shape)).toEqual([{ field: "threshold", message: "must be at most 1" }]);
    expect(issues({ above: 0 }, Shape)).toEqual([{ field: "above", message: "must be more than 0" }]);
    expect(issues({ code: "x" }, Shape)).toEqual([{ field: "code", message: "must be at least 2 characters" }]);
    expect(issues({ code: "wxyz" }, Shape)).toEqual([{ field: "code", message: "must be at most 3 characters" }]);
    expect(issues({ lists: [] }, Shape)).toEqual([{ field: "lists", message: "must not be empty" }]);
    expect(issues({ lists: ["a", "b", "c"] }, Shape)).toEqual([{ field: "lists", message: "must hold at most 2 items" }]);
    expect(issues({ plan: "gold" }, Shape)).toEqual([{ field: "plan", message: "must be one of basic, pro" }]);
    expect(issues({ fullName: "Jane Roe", nationality: "" })).toEqual([{ field: "nationality", message: "must not be empty" }]);
  });

  test("parseInput's detail reads as one sentence", () => {
    try {
      parseInput(Subject, { aliases: ["!!!"] }, "Screening request");
      throw new Error("no throw");
    } catch (error) {
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).message).toBe(`Screening request is invalid: fullName is required; aliases[0] ${NO_NAME_MESSAGE}`);
    }
  });
});

describe("userReference must not hold the subject's name (it is sent on webhooks)", () => {
  // The message is spelled out here, not imported, so a change of wording is a visible test change.
  const MESSAGE = "must not contain the subject's fullName or an alias: it is sent on webhooks, which never carry a name";
  const refused = [{ field: "userReference", message: MESSAGE }];

  test.each([
    ["the whole name, as sent", "Boris Quillfeather", "Boris Quillfeather"],
    ["the name inside a customer id", "Boris Quillfeather", "CUST-boris quillfeather-01"],
    ["upper case", "Boris Quillfeather", "BORIS QUILLFEATHER"],
    ["diacritics in the reference", "Boris Quillfeather", "Böris Quillfeather"],
    ["diacritics in the name", "Böris Quillféather", "ref/boris_quillfeather"],
    ["punctuation and spacing", "Boris Quillfeather", "x:Boris.Quillfeather;7"],
    ["a one-token name as a whole token", "Madonna", "MADONNA-01"],
    ["the name's tokens reversed", "Boris Quillfeather", "quillfeather boris"],
    ["the name written together", "Boris Quillfeather", "BorisQuillfeather-7"],
    ["another script, as the matcher transliterates it", "Владимир Путин", "vladimir-putin-7"],
    // Username-style: digits written against the name do not hide it.
    ["a username with a year", "John Smith", "john.smith85"],
    ["a username written together, with a year", "John Smith", "JohnSmith1985"],
    ["digits before the name written together", "John Smith", "cust1985johnsmith"],
    // Every token, anywhere: a reference that holds the name's words apart still holds the name.
    ["the tokens apart", "Boris Quillfeather", "boris-7-quillfeather"],
    ["the tokens apart, digits between them", "Boris Quillfeather", "boris7quillfeather"],
    ["the name with a patronymic between its words (a listed entity's full form)", "Vladimir Putin", "Vladimir Vladimirovich PUTIN"],
    // A name of three or more words: its first and last words are enough.
    ["the given name and surname of a three-word name", "Jane Mary Roe", "jane roe"],
    ["the same, reversed inside an id", "Boris Ivan Quillfeather", "crm-quillfeather-boris-9"],
  ])("%s is refused on userReference, for Subject and the check body", (_label, fullName, userReference) => {
    expect(issues({ fullName, userReference })).toEqual(refused);
    expect(issues({ fullName, userReference }, CheckInput)).toEqual(refused);
  });

  test("a short alias at the start of an id is accepted", () => {
    for (const [alias, userReference] of [
      ["Max", "MAX00123"],
      ["Al", "AL123456"],
      ["Ed", "ED25519-key"],
    ]) {
      expect(issues({ fullName: "Maxwell Aldous Edwards", aliases: [alias], userReference })).toEqual([]);
    }
  });

  test("a whole alias is refused too", () => {
    const subject = { fullName: "Boris Quillfeather", aliases: ["Boris Q.", "Bob Feather"], userReference: "crm-bob-feather" };
    expect(issues(subject)).toEqual(refused);
    expect(issues(subject, CheckInput)).toEqual(refused);
  });

  test.each([
    ["initials", "Boris Quillfeather", "BQ-001"],
    ["one token of a two-token name", "Anna Smith", "ANNA-7"],
    ["two inner words of a three-word name", "Jane Mary Roe", "mary-roe-3"],
    // A one-token name counts only as a whole token: everyday ids start with such letters.
    ["a one-token name with digits against it", "Madonna", "madonna01"],
    ["a short one-token name at the start of an id", "Kim", "KIM2024001"],
    ["a one-token name inside a longer token", "Madonna", "madonnas-01"],
  ])("%s is accepted", (_label, fullName, userReference) => {
    expect(issues({ fullName, userReference })).toEqual([]);
    expect(issues({ fullName, userReference }, CheckInput)).toEqual([]);
  });

  test("a reference already refused on its own, or an invalid name, is reported once", () => {
    expect(issues({ fullName: "Boris Quillfeather", userReference: "Boris Quillfeather\u0000" })).toEqual([{ field: "userReference", message: CONTROL_MESSAGE }]);
    expect(issues({ fullName: 5, userReference: "5" }).map((i) => i.field)).toEqual(["fullName"]);
  });

  test("referenceHoldsName compares whole normalised tokens", () => {
    expect(referenceHoldsName("CUST-boris quillfeather-01", ["Jane Roe", "Boris Quillfeather"])).toBe(true);
    expect(referenceHoldsName("BQ-001", ["Boris Quillfeather"])).toBe(false);
    expect(referenceHoldsName("---", ["Boris Quillfeather"])).toBe(false);
    expect(referenceHoldsName("boris", ["Boris Quillfeather"])).toBe(false);
  });

  test("referenceHoldsName finds a name reordered or written together, but only as whole tokens", () => {
    expect(referenceHoldsName("QUILLFEATHER_BORIS-01", ["Boris Quillfeather"])).toBe(true);
    expect(referenceHoldsName("kyc quillfeather, böris", ["Boris Quillfeather"])).toBe(true);
    expect(referenceHoldsName("BorisQuillfeather-7", ["Boris Quillfeather"])).toBe(true);
    expect(referenceHoldsName("REF-QUILLFEATHERBORIS", ["Boris Quillfeather"])).toBe(true);
    expect(referenceHoldsName("Boris-Ivan-Quillfeather", ["Boris Ivan Quillfeather"])).toBe(true);
    // Every token anywhere, or a three-word name's first and last: held.
    expect(referenceHoldsName("quillfeather-01 boris-02", ["Boris Quillfeather"])).toBe(true);
    expect(referenceHoldsName("boris quillfeather", ["Boris Ivan Quillfeather"])).toBe(true);
    // A token twice in the name must be there twice.
    expect(referenceHoldsName("ref-anna-7", ["Anna Anna"])).toBe(false);
    expect(referenceHoldsName("anna-anna-7", ["Anna Anna"])).toBe(true);
    // Not whole tokens, or not enough of them: accepted.
    expect(referenceHoldsName("carolina-3", ["Li Na"])).toBe(false);
    expect(referenceHoldsName("xborisquillfeather", ["Boris Quillfeather"])).toBe(false);
    expect(referenceHoldsName("ivan quillfeather", ["Boris Ivan Quillfeather"])).toBe(false);
  });
});

describe("quota reset", () => {
  test("seconds until the next UTC calendar month", () => {
    expect(secondsUntilNextUtcMonth(new Date("2026-03-31T23:59:59.500Z"))).toBe(1);
    expect(secondsUntilNextUtcMonth(new Date("2026-03-31T23:59:00.000Z"))).toBe(60);
    expect(secondsUntilNextUtcMonth(new Date("2026-04-01T00:00:00.000Z"))).toBe(30 * 86_400);
    expect(secondsUntilNextUtcMonth(new Date("2026-12-31T00:00:00.000Z"))).toBe(86_400);
    expect(secondsUntilNextUtcMonth(new Date("2028-02-01T00:00:00.000Z"))).toBe(29 * 86_400);
  });
});

describe("bulk CSV echoes a failed row's name", () => {
  test("displaySentName trims, shows controls and cuts a huge name", () => {
    expect(displaySentName("  !!!  ")).toBe("!!!");
    expect(displaySentName("Jane\u0000Roe\u0085")).toBe("Jane\uFFFDRoe\uFFFD");
    expect(displaySentName("x".repeat(600))).toBe(`${"x".repeat(500)}…`);
    // Cut in characters, as validation counts a name: an emoji is one, never split.
    const cut = displaySentName(`${"x".repeat(499)}😀😀`);
    expect(cut).toBe(`${"x".repeat(499)}😀…`);
    expect(cut.isWellFormed()).toBe(true);
    // 300 characters of 2 UTF-16 units each are within the 500 a name may have: shown whole.
    expect(displaySentName("𝔞".repeat(300))).toBe("𝔞".repeat(300));
    expect(displaySentName("𝔞".repeat(501))).toBe(`${"𝔞".repeat(500)}…`);
  });

  test("the failed row's fullName cell, formula-neutralised", () => {
    const failed = (index: number): BulkRowSummary =>
      failedRow(index, {}, { code: "VALIDATION_FAILED", detail: `The subject is invalid: fullName ${NO_NAME_MESSAGE}.`, errors: [] });
    const result: BulkResult = {
      rows: [failed(0), failed(1)],
      summary: { total: 2, screened: 0, failed: 2 },
      subjects: new Map(),
      sentNames: new Map([[0, "=HYPERLINK(\"http://evil.example\")\u0000"]]),
      replayed: false,
    };
    const lines = bulkCsv(result).split("\r\n");
    expect(lines[1]).toBe(
      `0,failed,,"'=HYPERLINK(""http://evil.example"")\uFFFD",,,,,,,,,,,,VALIDATION_FAILED,The subject is invalid: fullName ${NO_NAME_MESSAGE}.,,`,
    );
    expect(lines[2]).toStartWith("1,failed,,,");
  });
});
