// The database scenarios' engines, named once for the options that choose one and the apps'
// databases that serve it.

/** SQLite in each app process, or a throwaway PostgreSQL server (--db). */
export const DB_ENGINES = ["sqlite", "postgres"] as const;

export type DbEngine = (typeof DB_ENGINES)[number];
