// The apps' shared body reading (body.ts) and user-update rules (validate.ts), in-process: the
// order of the refusals, where each limit lies, and what counts as a date-time.
import { describe, expect, test } from "bun:test";
import {
  ERRORS,
  invalidFieldError,
  isClientGone,
  readBodyText,
  readJsonBody,
  TOO_LARGE,
  validateUserUpdate,
} from "../src/index.ts";

/** A stream that hands out `chunks` one read at a time and records whether it was cancelled. */
function chunked(chunks: Uint8Array[]) {
  const state = { cancelled: false, pulls: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        state.pulls++;
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

const post = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request("http://x/", { method: "POST", headers, body });

describe("readBodyText", () => {
  test("a stream of exactly the limit is read; one byte more is too large, and cancelled", async () => {
    const exact = chunked([new Uint8Array(6).fill(97), new Uint8Array(4).fill(98)]);
    expect(await readBodyText(post(exact.stream), 10)).toBe("aaaaaabbbb");
    const over = chunked([new Uint8Array(6), new Uint8Array(5), new Uint8Array(1)]);
    expect(await readBodyText(post(over.stream), 10)).toBe(TOO_LARGE);
    expect(over.state.cancelled).toBe(true);
  });

  test("a character split between chunks is decoded whole", async () => {
    // "é" is 0xC3 0xA9 in UTF-8: one byte in each chunk.
    const split = chunked([Uint8Array.of(0x61, 0xc3), Uint8Array.of(0xa9)]);
    expect(await readBodyText(post(split.stream), 10)).toBe("aé");
  });

  test("no body is the empty text", async () => {
    expect(await readBodyText(new Request("http://x/"), 10)).toBe("");
  });

  test("a declared length within the limit is read in one go, trusted as declared", async () => {
    // Over HTTP the parser never delivers more than Content-Length; in-process a Request can
    // declare 5 bytes and carry 12, which shows which read was taken: the runtime's own, whole
    // (counting chunks would have stopped at 10).
    const request = post("hello world!", { "content-length": "5" });
    expect(await readBodyText(request, 10)).toBe("hello world!");
  });

  test("a declared length is not trusted when the body is chunked", async () => {
    const body = chunked([new Uint8Array(8), new Uint8Array(8)]);
    const request = post(body.stream, { "content-length": "4", "transfer-encoding": "chunked" });
    expect(await readBodyText(request, 10)).toBe(TOO_LARGE);
  });

  test("a declared length that is no integer is read as a stream", async () => {
    const body = chunked([new Uint8Array(8), new Uint8Array(8)]);
    expect(await readBodyText(post(body.stream, { "content-length": "4.5" }), 10)).toBe(TOO_LARGE);
  });

  test("the default limit is the contract's 1 MiB", async () => {
    const mib = 1024 * 1024;
    expect(await readBodyText(post("x".repeat(mib)))).toHaveLength(mib);
    expect(await readBodyText(post("x".repeat(mib + 1)))).toBe(TOO_LARGE);
  });
});

describe("readJsonBody", () => {
  const JSON_TYPE = { "content-type": "application/json" };

  test("a JSON value is parsed", async () => {
    expect(await readJsonBody(post('{"a":[1]}', JSON_TYPE))).toEqual({ value: { a: [1] } });
    const charset = { "content-type": "application/json; charset=utf-8" };
    expect(await readJsonBody(post("[]", charset))).toEqual({ value: [] });
  });

  test("refusals in the contract's order: media type, then size, then syntax", async () => {
    const huge = "{".repeat(1024 * 1024 + 1);
    expect(await readJsonBody(post(huge, { "content-type": "text/plain" }))).toEqual({
      refusal: { status: 415, message: ERRORS.notJson, closeConnection: false },
    });
    expect(await readJsonBody(post(huge))).toEqual({
      refusal: { status: 415, message: ERRORS.notJson, closeConnection: false },
    });
    expect(await readJsonBody(post(huge, JSON_TYPE))).toEqual({
      refusal: { status: 413, message: ERRORS.tooLarge, closeConnection: true },
    });
    expect(await readJsonBody(post("{", JSON_TYPE))).toEqual({
      refusal: { status: 400, message: ERRORS.malformedJson, closeConnection: false },
    });
  });

  test("a body that breaks off while read is 400, and the connection is done", async () => {
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error("aborted"));
      },
    });
    expect(await readJsonBody(post(broken, JSON_TYPE))).toEqual({
      refusal: { status: 400, message: ERRORS.bodyUnreadable, closeConnection: true },
    });
  });
});

describe("isClientGone", () => {
  test("each sign alone is enough, on an Error", () => {
    expect(isClientGone(Object.assign(new Error("x"), { name: "AbortError" }))).toBe(true);
    expect(isClientGone(Object.assign(new Error("x"), { code: "ECONNRESET" }))).toBe(true);
    expect(isClientGone(new Error("aborted"))).toBe(true);
    expect(isClientGone(new DOMException("x", "TimeoutError"))).toBe(false);
  });

  test("something that only looks like one is not", () => {
    expect(isClientGone({ name: "AbortError", message: "aborted", code: "ECONNRESET" })).toBe(
      false,
    );
    expect(isClientGone(null)).toBe(false);
  });
});

describe("validateUserUpdate", () => {
  const good = { id: 42, name: "Ada", surname: "Lovelace", lastUpdate: "2026-01-15T09:30:00Z" };
  const field = (value: unknown) => {
    const result = validateUserUpdate(value);
    return "error" in result ? result.error : "ok";
  };

  test("a valid update comes back as it was sent", () => {
    expect(validateUserUpdate(good)).toEqual({ update: good });
  });

  test("only an object is an update", () => {
    for (const value of [null, [good], "x", 42, undefined]) {
      expect(field(value)).toBe(ERRORS.notObject);
    }
  });

  test("the first field that breaks its rule is named, in the order id, name, surname, lastUpdate", () => {
    expect(field({})).toBe(invalidFieldError("id"));
    expect(field({ id: 42 })).toBe(invalidFieldError("name"));
    expect(field({ id: 42, name: "A" })).toBe(invalidFieldError("surname"));
    expect(field({ id: 42, name: "A", surname: "B" })).toBe(invalidFieldError("lastUpdate"));
  });

  test("an id is an integer", () => {
    expect(field({ ...good, id: 1.5 })).toBe(invalidFieldError("id"));
    expect(field({ ...good, id: "42" })).toBe(invalidFieldError("id"));
  });

  test("a name is a string of 1 to 100 characters", () => {
    // NAME_MAX is 100: the contract's "a name over 100 characters is 400".
    expect(field({ ...good, name: "x" })).toBe("ok");
    expect(field({ ...good, name: "x".repeat(100) })).toBe("ok");
    expect(field({ ...good, name: "x".repeat(101) })).toBe(invalidFieldError("name"));
    expect(field({ ...good, name: "" })).toBe(invalidFieldError("name"));
    expect(field({ ...good, surname: "" })).toBe(invalidFieldError("surname"));
    expect(field({ ...good, surname: "y".repeat(101) })).toBe(invalidFieldError("surname"));
    expect(field({ ...good, surname: 7 })).toBe(invalidFieldError("surname"));
  });

  test.each([
    "2026-01-15T09:30:00Z",
    "2026-01-15T09:30:00.5Z",
    "2026-01-15T09:30:00.123456Z",
    "2026-01-15T09:30:00+02:00",
    "2026-01-15T09:30:00-05:30",
  ])("%s is an ISO date-time", (lastUpdate) => {
    expect(field({ ...good, lastUpdate })).toBe("ok");
  });

  test.each([
    "2026-01-15", // no time
    "2026-01-15T09:30:00", // no zone
    "2026-01-15 09:30:00Z", // a space for the T
    "x2026-01-15T09:30:00Z", // something before
    "2026-01-15T09:30:00Zx", // something after
    "2026-01-15T09:30:00.Z", // a point without digits
    "2026-01-15T09:30:00+0200", // a zone without its colon
    "2026-01-15T09:30Z", // no seconds
    "26-01-15T09:30:00Z", // a two-digit year
    "20260-01-15T09:30:00Z", // a five-digit year
    "2026-1-15T09:30:00Z", // a one-digit month
    "2026-01-5T09:30:00Z", // a one-digit day
    "2026-01-15T9:30:00Z", // a one-digit hour
    "2026-01-15T09:3:00Z", // a one-digit minute
    "2026-01-15T09:30:0Z", // a one-digit second
    "2026-01-15T09:30:00+2:00", // a one-digit zone hour
    "2026-01-15T09:30:00+02:0", // a one-digit zone minute
    "2026-01-15T09:30:00*02:00", // no sign
    "2026-01-15T09:30:00.aZ", // letters for the fraction
    "abcd-ef-ghTij:kl:mnZ", // letters for digits
    "2026-13-45T99:99:99Z", // the right shape, no date
    "+002026-01-15T09:30:00Z", // an expanded year, which Date.parse takes
  ])("%s is not", (lastUpdate) => {
    expect(field({ ...good, lastUpdate })).toBe(invalidFieldError("lastUpdate"));
  });

  test("a lastUpdate that is no string is refused", () => {
    expect(field({ ...good, lastUpdate: 1_768_469_400_000 })).toBe(invalidFieldError("lastUpdate"));
    // An array of one date-time reads as that date-time to both the pattern and Date.parse.
    const listed = { ...good, lastUpdate: ["2026-01-15T09:30:00Z"] };
    expect(field(listed)).toBe(invalidFieldError("lastUpdate"));
  });
});
