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

test("integer-like keys come first, ascending, as JSON.stringify writes them: the audit chain's stored hashes verify unchanged", () => {
  expect(canonicalJson({ b: 1, 10: "x", a: 2, 2: "y", "-1": 3 })).toBe('{"2":"y","10":"x","-1":3,"a":2,"b":1}');
  expect(canonicalJson({ at: new Date(0), f: () => 1, list: [undefined, () => 1, Number.NaN] })).toBe('{"at":"1970-01-01T00:00:00.000Z","list":[null,null,null]}');
});

test("a value nested 200,000 deep is written without overflowing the stack", () => {
  const deep = JSON.parse(`${"[".repeat(200_000)}{"a":1}${"]".repeat(200_000)}`) as unknown;
  expect(canonicalJson(deep)).toBe(`${"[".repeat(200_000)}{"a":1}${"]".repeat(200_000)}`);
});

test("nonFiniteAsWords tells Infinity, -Infinity and NaN from null, which JSON.stringify writes for all four", () => {
  expect(canonicalJson([Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN, null])).toBe("[null,null,null,null]");
  expect(canonicalJson([Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN, null], { nonFiniteAsWords: true })).toBe("[Infinity,-Infinity,NaN,null]");
});

test("a circular value is refused with a TypeError, not written until memory runs out; a value met twice without a cycle is written twice", () => {
  const loop: Record<string, unknown> = { a: 1 };
  loop.self = { back: loop };
  expect(() => canonicalJson(loop)).toThrow(TypeError);
  const shared = { x: 1 };
  expect(canonicalJson([shared, { y: shared }])).toBe('[{"x":1},{"y":{"x":1}}]');
});
