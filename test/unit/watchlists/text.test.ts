import { describe, expect, test } from "bun:test";
import { isoDate, parsePartialDate } from "@/watchlists/importers/common/dates";
import { identifierType } from "@/watchlists/importers/common/identifiers";
import { detectDeath, isNonLatin, splitNumbered } from "@/watchlists/importers/common/text";

describe("partial dates", () => {
  test.each([
    ["1961-07-23", { date: "1961-07-23" }],
    ["23/07/1961", { date: "1961-07-23" }],
    ["00/00/1965", { date: "1965" }],
    ["00/05/1965", { date: "1965-05" }],
    ["07/1961", { date: "1961-07" }],
    ["12 Mar 1961", { date: "1961-03-12" }],
    ["Mar 1961", { date: "1961-03" }],
    ["1962", { date: "1962" }],
    ["circa 1958", { date: "1958", circa: true }],
    ["1960 to 1962", { date: "1960", yearFrom: 1960, yearTo: 1962 }],
    ["01 Jan 1960 to 31 Dec 1962", { date: "1960", yearFrom: 1960, yearTo: 1962 }],
    ["between 1971 and 1973", { date: "1971", yearFrom: 1971, yearTo: 1973 }],
    ["1971-1973", { date: "1971", yearFrom: 1971, yearTo: 1973 }],
    ["2024-03-14T11:31:42", { date: "2024-03-14" }],
  ])("%s", (text, expected) => {
    expect(parsePartialDate(text)).toEqual(expected);
  });

  test.each([["unknown"], ["31/13/1999"], ["0000"], [""], ["Mar"]])("%s is not a date", (text) => {
    expect(parsePartialDate(text)).toBeUndefined();
  });

  test("UK dd-mm-yyyy dates", () => {
    expect(isoDate("29-06-2012")).toBe("2012-06-29");
  });
});

describe("deceased from remarks", () => {
  test.each([
    ["Reportedly deceased in June 2019.", "2019-06"],
    ["Confirmed to have died on 30 Sep. 2011 in Yemen.", "2011-09-30"],
    ["Believed status/location: deceased", undefined],
    ["Fictional. Killed on 3 December 2016 in Makhachkala.", "2016-12-03"],
    ["Deceased as of November 2015.", "2015-11"],
  ])("%s", (text, date) => {
    const death = detectDeath(text);
    expect(death.deceased).toBe(true);
    expect(death.dateOfDeath).toBe(date);
  });

  test.each([
    ["Close associate of Usama Bin Laden (deceased)."],
    ["He usurped the identity of X, who allegedly died in Chad in 2004."],
    ["Responsible for attacks in which 20 people were killed."],
    [""],
  ])("%s is not a death of the subject", (text) => {
    expect(detectDeath(text).deceased).toBe(false);
  });
});

describe("text helpers", () => {
  test.each([
    ["Анатол", true],
    ["صدام", true],
    ["李", true],
    ["Ñandú Çelik", false],
    ["AL-ZAWAHIRI", false],
  ])("isNonLatin(%s) = %s", (name, expected) => {
    expect(isNonLatin(name)).toBe(expected);
  });

  test("UK numbered enumerations", () => {
    expect(splitNumbered("(1) Iraq (2) Syria")).toEqual(["Iraq", "Syria"]);
    expect(splitNumbered("Pakistan")).toEqual(["Pakistan"]);
    expect(splitNumbered("  ")).toEqual([]);
  });

  test.each([
    ["Passport", "passport"],
    ["Diplomatic Passport", "passport"],
    ["National ID No.", "national_id"],
    ["Cedula No.", "national_id"],
    ["Tax ID No.", "tax_id"],
    ["R.F.C.", "tax_id"],
    ["Registration Number", "registration"],
    ["Unified Social Credit Code (USCC)", "registration"],
    ["SWIFT/BIC", "swift_bic"],
    ["IMO", "imo"],
    ["Legal Entity Number", "lei"],
    ["Website", "other"],
  ])("identifier label %s → %s", (label, type) => {
    expect(identifierType(label)).toBe(type);
  });
});
