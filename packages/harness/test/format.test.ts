// report/format.ts on its own: how numbers, percentages, changes and p-values are written, and
// the edges (exactly 0, exactly 0.001). Part of the mutation group "report-text".

import { describe, expect, test } from "bun:test";
import { change, fmt, pct, pValue } from "../src/report/format.ts";

describe("number formatting", () => {
  test("fmt: grouped thousands, fixed decimals, a dash for no number", () => {
    expect(fmt(41_200)).toBe("41,200");
    expect(fmt(1_234_567.891, 2)).toBe("1,234,567.89");
    expect(fmt(0.604, 2)).toBe("0.60");
    expect(fmt(17.5)).toBe("18");
    expect(fmt(-1_500)).toBe("-1,500");
    expect(fmt(Number.NaN)).toBe("—");
    expect(fmt(Number.POSITIVE_INFINITY)).toBe("—");
  });

  test("pct: rounds to whole percent unless told, a dash for nothing", () => {
    expect(pct(97.4)).toBe("97%");
    expect(pct(99.5)).toBe("100%");
    expect(pct(101.73)).toBe("102%");
    expect(pct(12.345, 1)).toBe("12.3%");
    expect(pct(1_250)).toBe("1,250%");
    expect(pct(undefined)).toBe("—");
    expect(pct(Number.NaN)).toBe("—");
  });

  test("change and pValue", () => {
    expect(change(0.031)).toBe("+3.1%");
    expect(change(-0.2)).toBe("−20.0%");
    expect(change(Number.NaN)).toBe("—");
    expect(pValue(0.0127)).toBe("0.013");
    expect(pValue(0.0004)).toBe("< 0.001");
    expect(pValue(1)).toBe("1.000");
  });
});

describe("format: the edges", () => {
  test("a fall that rounds to 0.0% carries no minus sign; one that rounds to 0.1% does", () => {
    expect(change(-0.0004)).toBe("+0.0%");
    expect(change(-0.0006)).toBe("−0.1%");
    expect(change(-0)).toBe("+0.0%");
  });

  test("a change of exactly 0 is +0.0%; a p-value of exactly 0.001 is shown, not '< 0.001'", () => {
    expect(change(0)).toBe("+0.0%");
    expect(change(Number.POSITIVE_INFINITY)).toBe("—");
    expect(pValue(0.001)).toBe("0.001");
    expect(pValue(Number.NaN)).toBe("—");
    expect(pct(Number.POSITIVE_INFINITY)).toBe("—");
    // the default is whole numbers: 2.5 rounds half away from zero (toLocaleString)
    expect(fmt(2.5)).toBe("3");
    expect(pct(2.5)).toBe("3%");
  });
});
