// Which engine a history target names (a postgres:// URL, else a file) and opening it.

import { openPostgresHistory } from "./postgres-history.ts";
import { checkSqliteWritable, openSqliteHistory } from "./sqlite-history.ts";
import { type HistoryStore, isPostgresUrl } from "./store.ts";

/**
 * The history at `target`, for reading (undefined when there is none yet) or writing (made
 * when there is none); a HistoryError when it cannot be used.
 */
export async function openHistory(
  target: string,
  write: boolean,
): Promise<HistoryStore | undefined> {
  return isPostgresUrl(target)
    ? openPostgresHistory(target, write)
    : openSqliteHistory(target, write);
}

/**
 * Before a run measures anything: the history it will record into can be written (reached,
 * a history of this harness's, writable), or a HistoryError. A file is not created yet; a
 * PostgreSQL database gets its tables.
 */
export async function checkHistoryWritable(target: string): Promise<void> {
  if (!isPostgresUrl(target)) return checkSqliteWritable(target);
  const store = await openPostgresHistory(target, true);
  await store?.close();
}
