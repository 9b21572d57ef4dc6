import { describe, expect, test } from "bun:test";
import { webhookPayloadFromOutcome } from "@/webhooks/payload";
import { SPEC_BODY_FIELDS, sampleOutcome } from "./fixtures";

describe("webhookPayloadFromOutcome", () => {
  test("produces exactly the spec body fields, event first", () => {
    const payload = webhookPayloadFromOutcome("screening.completed", sampleOutcome());
    expect(Object.keys(payload).sort()).toEqual(SPEC_BODY_FIELDS);
    expect(Object.keys(payload)[0]).toBe("event");
    expect(payload.event).toBe("screening.completed");
  });

  test("a screening record with names cannot be passed (type error), and at run time no name gets through", () => {
    const record = {
      ...sampleOutcome(),
      fullName: "Ivan Petrovich Sidorov",
      aliases: ["Ivan Sidorov"],
      dateOfBirth: "1961-03-14",
      matches: [{ entityName: "SIDOROV, Ivan Petrovich", source: "OFAC" }],
    };
    // @ts-expect-error: extra fields (fullName, matches...) are rejected at compile time, even from a variable.
    const payload = webhookPayloadFromOutcome("monitoring.alert", record);
    const json = JSON.stringify(payload);
    expect(json).not.toContain("Sidorov");
    expect(json).not.toContain("SIDOROV");
    expect(json).not.toContain("1961");
    expect(Object.keys(payload).sort()).toEqual(SPEC_BODY_FIELDS);
  });

  test("lists are distinct; missing optional values become null", () => {
    const outcome = { ...sampleOutcome({ pepTiers: ["Domestic", "Domestic", "Foreign"], sourceLists: ["EU", "EU"] }) };
    const payload = webhookPayloadFromOutcome("screening.completed", { ...outcome, userReference: null, classification: null, correlationId: null });
    expect(payload.pepTiers).toEqual(["Domestic", "Foreign"]);
    expect(payload.sourceLists).toEqual(["EU"]);
    expect(payload.userReference).toBeNull();
    expect(payload.classification).toBeNull();
    expect(payload.correlationId).toBeNull();
  });
});
