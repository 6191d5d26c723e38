// Does an app serve the database routes from the database, at request time? The verifier holds
// its own connection to the app's database (db-probes.ts, pg-probe.ts: either engine): it rewrites
// every World row with numbers the app cannot guess before each check, so an answer from a
// cache, a precomputed table or the seed fails; it adds a fortune the app has never seen; it
// reads back what /updates says it wrote.

import {
  DB_ROUTES,
  fortunesHtml,
  QUERIES_MAX,
  SCENARIO_QUERIES,
  WORLD_ROWS,
  type World,
} from "../spec/db.ts";
import { type DbProbe, rewriteWorlds } from "./db-probes.ts";
import { preview } from "./payloads.ts";
import { type Fetcher, mediaTypeOf, type Violation } from "./violation.ts";

/** `?queries=` values and the row count each must give (TechEmpower's clamping, plus hostile). */
export const QUERIES_CASES: readonly (readonly [string | undefined, number])[] = [
  [undefined, 1],
  ["", 1],
  ["0", 1],
  ["-5", 1],
  ["abc", 1],
  ["1.5", 1],
  ["7", 7],
  [String(QUERIES_MAX + 1), QUERIES_MAX],
  ["1000000000", QUERIES_MAX],
  ["x".repeat(10_240), 1],
  ["9".repeat(10_240), QUERIES_MAX],
];

const contentType = (response: Response) => response.headers.get("content-type") ?? "";

async function getJson(fetcher: Fetcher, url: string): Promise<[unknown, string[]]> {
  const response = await fetcher(new Request(url));
  const text = await response.text();
  const problems: string[] = [];
  if (response.status !== 200) problems.push(`status ${response.status}, expected 200`);
  if (mediaTypeOf(response) !== "application/json") {
    problems.push(`content-type "${contentType(response)}", expected JSON`);
  }
  try {
    return [JSON.parse(text), problems];
  } catch {
    return [undefined, [...problems, `body is not JSON: ${preview(text)}`]];
  }
}

/**
 * Problems with one World as answered: exact keys, an id in range and, given `numberOf`, the
 * number the table holds.
 */
export function worldProblems(value: unknown, numberOf?: (id: number) => number): string[] {
  const row = value as World;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return [`${JSON.stringify(value)} is not a World object`];
  }
  if (Object.keys(row).join() !== "id,randomNumber") {
    return [`keys [${Object.keys(row)}], expected [id,randomNumber] in that order`];
  }
  if (!Number.isInteger(row.id) || row.id < 1 || row.id > WORLD_ROWS) {
    return [`id ${JSON.stringify(row.id)} is not an id of World`];
  }
  if (
    !Number.isInteger(row.randomNumber) ||
    row.randomNumber < 1 ||
    row.randomNumber > WORLD_ROWS
  ) {
    return [`row ${row.id}: randomNumber ${JSON.stringify(row.randomNumber)} out of range`];
  }
  const expected = numberOf?.(row.id) ?? row.randomNumber;
  if (row.randomNumber !== expected) {
    return [`row ${row.id}: randomNumber ${row.randomNumber}, the table holds ${expected}`];
  }
  return [];
}

function rowsProblems(value: unknown, count: number, numberOf?: (id: number) => number): string[] {
  if (!Array.isArray(value)) return [`${preview(JSON.stringify(value))} is not an array`];
  if (value.length !== count) return [`${value.length} rows, expected ${count}`];
  return value.flatMap((row) => worldProblems(row, numberOf)).slice(0, 3);
}

const queriesUrl = (origin: string, route: string, raw: string | undefined) =>
  `${origin}${route}${raw === undefined ? "" : `?queries=${raw}`}`;

/** /db and /queries answer what the table holds now, from random rows. */
async function checkReads(fetcher: Fetcher, origin: string, db: DbProbe) {
  const violations: Violation[] = [];
  for (const pass of [1, 2]) {
    const numberOf = await rewriteWorlds(db);
    const ids = new Set<number>();
    for (let i = 0; i < 8; i++) {
      const [row, problems] = await getJson(fetcher, origin + DB_ROUTES.db);
      if (row !== undefined) problems.push(...worldProblems(row, numberOf));
      for (const detail of problems) violations.push({ check: `GET /db (pass ${pass})`, detail });
      ids.add((row as World | undefined)?.id ?? 0);
    }
    if (ids.size < 2) {
      violations.push({ check: "GET /db", detail: `8 answers gave one row: not a random id` });
    }
    const url = queriesUrl(origin, DB_ROUTES.queries, String(SCENARIO_QUERIES));
    const [rows, problems] = await getJson(fetcher, url);
    problems.push(...rowsProblems(rows, SCENARIO_QUERIES, numberOf));
    for (const detail of problems) {
      violations.push({ check: `GET /queries?queries=${SCENARIO_QUERIES} (pass ${pass})`, detail });
    }
  }
  return violations;
}

/** Missing, bad and huge `?queries=` values give the clamped number of rows. */
async function checkClamping(fetcher: Fetcher, origin: string, db: DbProbe) {
  const violations: Violation[] = [];
  const numberOf = await rewriteWorlds(db);
  for (const route of [DB_ROUTES.queries, DB_ROUTES.updates]) {
    for (const [raw, count] of QUERIES_CASES) {
      if (route === DB_ROUTES.updates && count === QUERIES_MAX && raw !== "1000000000") continue;
      const [rows, problems] = await getJson(fetcher, queriesUrl(origin, route, raw));
      // /updates' numbers are new: only the count and the shape are checked here.
      problems.push(
        ...rowsProblems(rows, count, route === DB_ROUTES.queries ? numberOf : undefined),
      );
      const shown = raw === undefined ? "(none)" : preview(raw);
      for (const detail of problems) {
        violations.push({ check: `GET ${route} with queries=${shown}`, detail });
      }
    }
  }
  return violations;
}

/** The page is the contract's rendering, byte for byte, of the rows the table holds now. */
async function checkFortunes(fetcher: Fetcher, origin: string, db: DbProbe) {
  const check = "GET /fortunes";
  const id = WORLD_ROWS + Math.floor(Math.random() * 1_000_000);
  const message = `<b class="new">fortune ${id} & 'friends'</b>`;
  await db.addFortune({ id, message });
  try {
    const expected = fortunesHtml(await db.fortunes());
    const response = await fetcher(new Request(origin + DB_ROUTES.fortunes));
    const text = await response.text();
    const problems: string[] = [];
    if (response.status !== 200) problems.push(`status ${response.status}, expected 200`);
    const type = contentType(response).toLowerCase().replaceAll(" ", "");
    if (type !== "text/html;charset=utf-8") {
      problems.push(`content-type "${contentType(response)}", expected HTML in UTF-8`);
    }
    if (text !== expected) {
      const at = [...text].findIndex((c, i) => c !== [...expected][i]);
      problems.push(
        `page differs from the contract's at character ${at}: ${preview(text.slice(Math.max(0, at - 20)))}, ` +
          `expected ${preview(expected.slice(Math.max(0, at - 20)))}`,
      );
    }
    return problems.map((detail) => ({ check, detail }));
  } finally {
    await db.removeFortune(id);
  }
}

/** /updates answers new numbers, and the table holds them afterwards. */
async function checkUpdates(fetcher: Fetcher, origin: string, db: DbProbe) {
  const check = `GET /updates?queries=${SCENARIO_QUERIES}`;
  const before = await rewriteWorlds(db);
  const [rows, problems] = await getJson(fetcher, queriesUrl(origin, DB_ROUTES.updates, "20"));
  // Rows with an id are read back; rowsProblems names the others.
  const answered = Array.isArray(rows)
    ? (rows as World[]).filter((row) => Number.isInteger(row?.id))
    : [];
  const last = new Map(answered.map((row) => [row.id, row.randomNumber]));
  problems.push(...rowsProblems(rows, SCENARIO_QUERIES));
  const unsaved: [number, number, number | undefined][] = [];
  for (const [id, n] of last) {
    const stored = await db.numberOf(id);
    if (stored !== n) unsaved.push([id, n, stored]);
  }
  if (unsaved.length > 0) {
    const [id, n, stored] = unsaved[0] as [number, number, number | undefined];
    problems.push(
      `${unsaved.length} rows not written: row ${id} answered ${n}, the table holds ${stored}`,
    );
  }
  const unchanged = answered.filter((row) => row.randomNumber === before(row.id)).length;
  if (unchanged > answered.length / 2) {
    problems.push(`${unchanged} of ${answered.length} rows kept their number: none was updated`);
  }
  return problems.map((detail) => ({ check, detail }));
}

/**
 * The database routes against the app's own database, opened by the caller (`db`: SQLite with
 * the verifier's runtime's driver, or PostgreSQL). Empty: the app serves the database contract.
 */
export async function checkDatabase(
  fetcher: Fetcher,
  origin: string,
  db: DbProbe,
): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const check of [checkReads, checkClamping, checkFortunes, checkUpdates]) {
    try {
      violations.push(...(await check(fetcher, origin, db)));
    } catch (error) {
      const detail = `failed: ${error instanceof Error ? error.message : String(error)}`;
      violations.push({ check: `database: ${check.name}`, detail });
    }
  }
  return violations;
}
