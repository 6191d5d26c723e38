// The database scenarios' engines, named once for the options that choose one and the apps'
// databases that serve it.

/** SQLite in each app process, or a throwaway PostgreSQL server (--db). */
export type DbEngine = "sqlite" | "postgres";
