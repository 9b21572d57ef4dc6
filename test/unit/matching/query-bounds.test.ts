import { describe, expect, test } from "bun:test";
import { MAX_QUERY_TOKENS, planQuery } from "../../../src/matching/query";
import { fixtureIndex, run } from "./helpers";

const EXPAND = { trigramFloor: 0.5, phonetic: true, nicknames: true, exactOnly: false };

/**
 * A 500-character name of "Al Al Al …" planned 160 tokens, and 21 such names in one subject held the
 * server's one thread for 0.4 s (a fuzz review). A query name plans each token at most twice and at
 * most 32 tokens, and a subject's repeated names are screened once.
 */
describe("the work one query name can ask for is bounded", () => {
  test("a token is planned at most twice, and at most 32 tokens in all", () => {
    const plan = planQuery(fixtureIndex(), `${"Al ".repeat(160)}Mohammed`, EXPAND);
    expect(plan.tokens.map((t) => t.text)).toEqual(["al", "al", "mohammed"]);
    const long = planQuery(fixtureIndex(), Array.from({ length: 60 }, (_, i) => `word${i}`).join(" "), EXPAND);
    expect(long.tokens).toHaveLength(MAX_QUERY_TOKENS);
    expect(long.tokens[MAX_QUERY_TOKENS - 1]?.text).toBe(`word${MAX_QUERY_TOKENS - 1}`);
  });

  test("a real name with a word twice keeps both", () => {
    expect(planQuery(fixtureIndex(), "Mohammed bin Mohammed", EXPAND).tokens.map((t) => t.text)).toEqual(["mohammed", "bin", "mohammed"]);
  });

  test("an alias equal to the full name or to another alias changes nothing", () => {
    const alone = run({ fullName: "Abu Muhammad" });
    expect(alone.matches.length).toBeGreaterThan(0);
    const repeated = run({ fullName: "Abu Muhammad", aliases: Array(20).fill("Abu Muhammad") });
    expect(repeated.matches).toEqual(alone.matches);
    expect(repeated.outcome).toEqual(alone.outcome);
  });
});
