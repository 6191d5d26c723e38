// Durations as the terminal and the reports say them.

/** "9m47s", "42s": seconds, whole, as minutes and seconds from a minute on. */
export function formatSec(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}
