// Number formatting shared by the terminal summary and the reports.

/** Grouped thousands, fixed decimals; "—" for a number that is not there (NaN). */
export const fmt = (value: number, digits = 0): string =>
  Number.isFinite(value)
    ? value.toLocaleString("en-US", {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      })
    : "—";

export const pct = (value: number | undefined, digits = 0): string =>
  value === undefined || !Number.isFinite(value) ? "—" : `${fmt(value, digits)}%`;

/** A signed percentage change, "+3.1%" / "−20.0%"; one that rounds to 0.0% has no minus sign. */
export function change(ratio: number): string {
  if (!Number.isFinite(ratio)) return "—";
  const size = fmt(Math.abs(ratio) * 100, 1);
  return `${ratio < 0 && size !== "0.0" ? "−" : "+"}${size}%`;
}

/** A p-value to three decimals; below that, "< 0.001" rather than a misleading "0.000". */
export const pValue = (p: number): string =>
  !Number.isFinite(p) ? "—" : p < 0.001 ? "< 0.001" : p.toFixed(3);
