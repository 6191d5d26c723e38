// report/text-table.ts: the plain-text aligner every terminal table goes through.
import { describe, expect, test } from "bun:test";
import { alignColumns, textTable } from "../src/report/text-table.ts";

describe("alignColumns", () => {
  test("each column as wide as its widest cell, two spaces apart, no trailing blanks", () => {
    expect(
      alignColumns([
        ["app", "req/s", "note"],
        ["bun-bare", "9", ""],
        ["x", "12,345", "slow"],
      ]),
    ).toEqual(["app       req/s   note", "bun-bare  9", "x         12,345  slow"]);
  });

  test('"r" pads on the left, anything else on the right; a short row keeps its cells', () => {
    expect(
      alignColumns(
        [
          ["a", "1", "z"],
          ["bbb", "22"],
        ],
        ["l", "r"],
      ),
    ).toEqual(["a     1  z", "bbb  22"]);
    expect(alignColumns([["1"], ["333"]], ["r"])).toEqual(["  1", "333"]);
    // A missing cell is empty: it does not widen its column for the rows that have one.
    expect(alignColumns([["a", "1", "z"], ["bbb"]])).toEqual(["a    1  z", "bbb"]);
  });

  test("no rows, no lines", () => {
    expect(alignColumns([])).toEqual([]);
  });
});

describe("textTable", () => {
  test("the header, a rule as wide as each column (header included), then the rows", () => {
    expect(
      textTable(
        ["app", "×"],
        [
          ["bun-bare", "1.000"],
          ["node-bare", "2.117"],
        ],
        ["l", "r"],
      ),
    ).toEqual(["app            ×", "---------  -----", "bun-bare   1.000", "node-bare  2.117"]);
    expect(textTable(["a long header", "b"], [["x", "y"]])).toEqual([
      "a long header  b",
      "-------------  -",
      "x              y",
    ]);
  });
});
