import { expect, test } from "bun:test";
import { canonicalJson } from "@/lib/canonical-json";

test("keys are sorted at every depth, undefined dropped, arrays kept in order", () => {
  expect(canonicalJson({ b: 1, a: { d: [2, 1], c: undefined } })).toBe('{"a":{"d":[2,1]},"b":1}');
});

// Bulk Idempotency-Keys hash invalid rows as the client sent them: a parsed "__proto__" key is data.
test('a parsed "__proto__" key is kept as a property, so two different requests never hash alike', () => {
  const withProto = JSON.parse('{"fullName":7,"__proto__":{"x":1}}') as unknown;
  expect(canonicalJson(withProto)).toBe('{"__proto__":{"x":1},"fullName":7}');
  expect(canonicalJson(withProto)).not.toBe(canonicalJson({ fullName: 7 }));
});
