// Plain-text columns: every cell padded to its column's widest, two spaces between columns, no
// trailing blanks. The terminal summary, summary.txt's extra tables and --compare's table all
// align their text here.

/** A column's alignment: "l" pads on the right, "r" on the left (figures). */
export type Align = "l" | "r";

type Rows = readonly (readonly string[])[];

function widthsOf(rows: Rows): number[] {
  const count = Math.max(0, ...rows.map((r) => r.length));
  return Array.from({ length: count }, (_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
}

function lines(rows: Rows, widths: readonly number[], align?: readonly Align[]): string[] {
  return rows.map((r) =>
    r
      .map((c, i) => (align?.[i] === "r" ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

/** The rows as lines, each column as wide as its widest cell (left-aligned unless `align` says). */
export function alignColumns(rows: Rows, align?: readonly Align[]): string[] {
  return lines(rows, widthsOf(rows), align);
}

/** A header, a rule of dashes as wide as each column, then the rows. */
export function textTable(
  header: readonly string[],
  rows: Rows,
  align?: readonly Align[],
): string[] {
  const widths = widthsOf([header, ...rows]);
  const rule = widths.map((w) => "-".repeat(w));
  return lines([header, rule, ...rows], widths, align);
}
