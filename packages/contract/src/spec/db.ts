// The database scenarios' contract, after TechEmpower's rules: the tables and their seed, how
// `?queries=` is read, and the exact fortunes page. The apps, the verifier and the harness's
// seeding all take them from here, so every app serves the same bytes from the same rows.

/** The variable naming the database file an app serves from (stores/selector.ts). */
export const DB_ENV = "BENCH_DB";

/** The variable holding the URL of an app's PostgreSQL database (`--db postgres`). */
export const PG_ENV = "BENCH_PG";

/** Connections in each app process's pool: the same for every runtime and client. */
export const PG_POOL = 8;

/** Rows of World: ids 1..WORLD_ROWS, each with a randomNumber in 1..WORLD_ROWS. */
export const WORLD_ROWS = 10_000;

/** The most rows /queries and /updates answer; more is clamped to this. */
export const QUERIES_MAX = 500;

/** The row count the `queries` and `updates` scenarios ask for (TechEmpower's largest step). */
export const SCENARIO_QUERIES = 20;

export const DB_ROUTES = {
  db: "/db",
  queries: "/queries",
  fortunes: "/fortunes",
  updates: "/updates",
} as const;

export interface World {
  readonly id: number;
  readonly randomNumber: number;
}

export interface Fortune {
  readonly id: number;
  readonly message: string;
}

/** TechEmpower's twelve fortunes: one with markup to escape, one in Japanese (UTF-8). */
export const FORTUNES: readonly Fortune[] = [
  { id: 1, message: "fortune: No such file or directory" },
  { id: 2, message: "A computer scientist is someone who fixes things that aren't broken." },
  { id: 3, message: "After enough decimal places, nobody gives a damn." },
  { id: 4, message: "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1" },
  {
    id: 5,
    message: "A computer program does what you tell it to do, not what you want it to do.",
  },
  { id: 6, message: "Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen" },
  { id: 7, message: "Any program that runs right is obsolete." },
  { id: 8, message: "A list is only as strong as its weakest link. — Donald Knuth" },
  { id: 9, message: "Feature: A bug with seniority." },
  { id: 10, message: "Computers make very fast, very accurate mistakes." },
  {
    id: 11,
    message: '<script>alert("This should not be displayed in a browser alert box.");</script>',
  },
  { id: 12, message: "フレームワークのベンチマーク" },
];

/** The fortune every answer adds at request time, before sorting. */
export const ADDED_FORTUNE: Fortune = {
  id: 0,
  message: "Additional fortune added at request time.",
};

/** The fortunes page's media type: HTML, its encoding declared. */
export const FORTUNES_CONTENT_TYPE = "text/html; charset=utf-8";

/** The seeded randomNumber of row `id`: fixed by the contract, so every copy is the same. */
export function seededNumber(id: number): number {
  return ((id * 7919 + 4099) % WORLD_ROWS) + 1;
}

/** The SQL that creates and fills both tables (one script: each driver's `exec` runs it). */
export function seedSql(): string {
  const worlds = Array.from(
    { length: WORLD_ROWS },
    (_, i) => `(${i + 1},${seededNumber(i + 1)})`,
  ).join(",");
  const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;
  const fortunes = FORTUNES.map((f) => `(${f.id},${quote(f.message)})`).join(",");
  return [
    "CREATE TABLE World (id INTEGER PRIMARY KEY, randomNumber INTEGER NOT NULL);",
    "CREATE TABLE Fortune (id INTEGER PRIMARY KEY, message TEXT NOT NULL);",
    `INSERT INTO World (id, randomNumber) VALUES ${worlds};`,
    `INSERT INTO Fortune (id, message) VALUES ${fortunes};`,
  ].join("\n");
}

/**
 * `?queries=`: an integer from 1 to QUERIES_MAX. Missing, empty, not an integer (abc, 1.5, +2),
 * zero or negative → 1; above the maximum, however long → QUERIES_MAX.
 */
export function parseQueries(raw: string | null | undefined): number {
  if (!/^-?\d+$/.test(raw ?? "")) return 1;
  return Math.min(Math.max(Number(raw), 1), QUERIES_MAX);
}

/** A World id drawn uniformly from 1..WORLD_ROWS. */
export function randomWorldId(): number {
  return 1 + Math.floor(Math.random() * WORLD_ROWS);
}

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text made safe for HTML content and attributes: & < > " ' escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** The rows read plus ADDED_FORTUNE, sorted by message (code-unit order). */
export function fortunesToServe(fromDatabase: readonly Fortune[]): Fortune[] {
  const all = [...fromDatabase, ADDED_FORTUNE];
  return all.sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
}

/** The fortunes page for rows read from the database: the exact bytes every app sends. */
export function fortunesHtml(fromDatabase: readonly Fortune[]): string {
  const rows = fortunesToServe(fromDatabase)
    .map((f) => `<tr><td>${f.id}</td><td>${escapeHtml(f.message)}</td></tr>`)
    .join("");
  return (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Fortunes</title></head><body>' +
    `<table><tr><th>id</th><th>message</th></tr>${rows}</table></body></html>`
  );
}
