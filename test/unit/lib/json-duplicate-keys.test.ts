import { describe, expect, test } from "bun:test";
import { firstDuplicateKey } from "@/lib/json-duplicate-keys";

describe("firstDuplicateKey", () => {
  test.each([
    ['{"a":1,"a":2}', { key: "a", path: "a" }],
    ['{ "a" : 1 ,\n "b": 2,\r\n\t"a" : 3 }', { key: "a", path: "a" }],
    ['[{"fullName":"x"},{"fullName":"a","b":{"c":1},"fullName":"b"}]', { key: "fullName", path: "[1].fullName" }],
    ['{"o":{"x":[1,"s,t",{"k":1,"k":2}]}}', { key: "k", path: "o.x[2].k" }],
    ['{"full\\u004eame":1,"fullName":2}', { key: "fullName", path: "fullName" }],
    ['{"a\\"":1,"a\\"":2}', { key: 'a"', path: 'a"' }],
    ['{"a":"\\\\","a":1}', { key: "a", path: "a" }],
    ['{"x":[[{"z":1}],[{"z":1,"z":1}]]}', { key: "z", path: "x[1][0].z" }],
  ])("finds the repeat in %s", (text, expected) => {
    expect(() => JSON.parse(text)).not.toThrow();
    expect(firstDuplicateKey(text)).toEqual(expected);
  });

  test.each([
    '{"a":"a","b":"a"}',
    '["a","a"]',
    '{"a":{"b":1},"c":{"b":1}}',
    '[{"a":1},{"a":1}]',
    '{"a":"\\"a\\":","b":":"}',
    '{"k":"{\\"k\\":1,\\"k\\":2}"}',
    '{"A":1,"a":2}',
    '"plain"',
    "42",
  ])("finds none in %s", (text) => {
    expect(() => JSON.parse(text)).not.toThrow();
    expect(firstDuplicateKey(text)).toBeNull();
  });

  test("agrees with an independent tokenizer over generated documents", () => {
    const names = ["a", "b", "fullName", "a\\u0062", "x y"];
    let seed = 7;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 16) % n;
    };
    const gen = (depth: number): string => {
      const kind = depth > 3 ? 2 : next(3);
      if (kind === 0) return `{${Array.from({ length: next(5) }, () => `"${names[next(names.length)]}":${gen(depth + 1)}`).join(",")}}`;
      if (kind === 1) return `[${Array.from({ length: next(3) }, () => gen(depth + 1)).join(",")}]`;
      return next(2) === 0 ? `"${names[next(names.length)]}"` : String(next(100));
    };
    // A regular-expression tokenizer: names (a string followed by a colon) and brackets, per object.
    const hasRepeat = (text: string): boolean => {
      const seen: Array<Set<string> | null> = [];
      for (const token of text.match(/"(?:[^"\\]|\\.)*"\s*:|[{}[\]]/g) ?? []) {
        if (token === "{") seen.push(new Set());
        else if (token === "[") seen.push(null);
        else if (token === "}" || token === "]") seen.pop();
        else {
          const name = JSON.parse(token.replace(/\s*:$/, "")) as string;
          const top = seen[seen.length - 1];
          if (top?.has(name)) return true;
          top?.add(name);
        }
      }
      return false;
    };
    let repeats = 0;
    for (let i = 0; i < 2_000; i++) {
      const text = gen(0);
      expect(() => JSON.parse(text)).not.toThrow();
      const expected = hasRepeat(text);
      if (expected) repeats++;
      expect(firstDuplicateKey(text) !== null).toBe(expected);
    }
    expect(repeats).toBeGreaterThan(100);
  });
});
