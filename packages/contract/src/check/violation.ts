// What every check reports, and what it sends requests through. A leaf of check/: the checks
// import it, and verify.ts imports the checks, so no check needs verify.ts (the cycle verify.ts →
// db-open.ts → db-checks.ts → verify.ts ran only because ES modules hoist function declarations).

export interface Violation {
  readonly check: string;
  readonly detail: string;
}

/** Anything that turns a Request into a Response: `fetch`, or an app's in-process handler. */
export type Fetcher = (request: Request) => Response | Promise<Response>;

/**
 * The media type of an answer, in lower case, without parameters; "" with none. (Cut at the
 * first ";" by index, as isJsonContentType does: `split(";")[0]` needs a `?? ""` for the type
 * checker that no answer can reach.)
 */
export function mediaTypeOf(response: Response): string {
  const header = response.headers.get("content-type") ?? "";
  const semi = header.indexOf(";");
  return (semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase();
}
