// Pipelined requests, read back with a strict HTTP/1.1 parser: four requests in one write on one
// keep-alive connection must come back as exactly four well-formed answers, in order, each
// framed exactly (Content-Length or chunked), with nothing before, between or after them. A
// server that loses a request, answers out of order, or frames a body loosely passes fetch()
// and most load generators, and fails here.

import { GREETING, ROUTES } from "../spec/endpoints.ts";
import { ECHO_BODY } from "../spec/fixtures.ts";
import { describeError } from "./payloads.ts";
import type { Violation } from "./violation.ts";
import { addHeader, rawText } from "./wire.ts";

export interface StrictAnswer {
  readonly status: number;
  /** Header names in lower case; a repeated header's values joined with ", ". */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
}

const STATUS_LINE = /^HTTP\/1\.1 (\d{3}) [^\r\n]*$/;
const HEADER = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*([^\r\n]*?)[ \t]*$/;

/** The answers in `text`, framed strictly; throws naming the first flaw. */
export function parseStrict(text: string): StrictAnswer[] {
  const answers: StrictAnswer[] = [];
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf("\r\n\r\n", at);
    if (end === -1) throw new Error(`answer ${answers.length + 1}: its headers never end`);
    const [statusLine = "", ...lines] = text.slice(at, end).split("\r\n");
    const status = STATUS_LINE.exec(statusLine);
    if (!status)
      throw new Error(
        `answer ${answers.length + 1}: bad status line ${JSON.stringify(statusLine)}`,
      );
    const headers = new Map<string, string>();
    for (const line of lines) {
      const header = HEADER.exec(line);
      if (!header)
        throw new Error(`answer ${answers.length + 1}: bad header line ${JSON.stringify(line)}`);
      const name = (header[1] as string).toLowerCase();
      if (headers.has(name) && name === "content-length") {
        throw new Error(`answer ${answers.length + 1}: Content-Length twice`);
      }
      addHeader(headers, name, header[2] as string);
    }
    const [body, next] = frameBody(text, end + 4, headers, answers.length + 1);
    answers.push({ status: Number(status[1]), headers, body });
    at = next;
  }
  return answers;
}

function frameBody(
  text: string,
  start: number,
  headers: ReadonlyMap<string, string>,
  n: number,
): [string, number] {
  const chunked = headers.get("transfer-encoding")?.toLowerCase() === "chunked";
  const length = headers.get("content-length");
  if (chunked && length !== undefined)
    throw new Error(`answer ${n}: both chunked and Content-Length`);
  if (!chunked) {
    if (length === undefined || !/^\d+$/.test(length)) {
      throw new Error(`answer ${n}: no usable Content-Length (${JSON.stringify(length)})`);
    }
    const end = start + Number(length);
    if (end > text.length) throw new Error(`answer ${n}: body shorter than its Content-Length`);
    return [text.slice(start, end), end];
  }
  let body = "";
  let at = start;
  for (;;) {
    const lineEnd = text.indexOf("\r\n", at);
    const size = text.slice(at, lineEnd);
    if (lineEnd === -1 || !/^[0-9a-fA-F]+$/.test(size)) {
      throw new Error(`answer ${n}: bad chunk size ${JSON.stringify(size)}`);
    }
    const bytes = Number.parseInt(size, 16);
    const dataEnd = lineEnd + 2 + bytes;
    if (text.slice(dataEnd, dataEnd + 2) !== "\r\n")
      throw new Error(`answer ${n}: chunk not closed by CRLF`);
    if (bytes === 0) return [body, dataEnd + 2];
    body += text.slice(lineEnd + 2, dataEnd);
    at = dataEnd + 2;
  }
}

/** What the four pipelined requests must come back as, in this order. */
const PIPELINE = [
  { request: `GET ${ROUTES.root}`, status: 200, body: (text: string) => text === GREETING },
  { request: `GET ${ROUTES.api}`, status: 200, body: (text: string) => text.includes('"message"') },
  {
    request: `POST ${ROUTES.echo}`,
    headers: `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(ECHO_BODY)}\r\n`,
    payload: Buffer.from(ECHO_BODY).toString("latin1"),
    status: 200,
    body: (text: string) => Buffer.from(text, "latin1").toString("utf8") === ECHO_BODY,
  },
  {
    request: `GET ${ROUTES.items}?count=3`,
    status: 200,
    body: (text: string) => text.startsWith("["),
  },
];

export async function checkPipelined(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<Violation[]> {
  const check = "four pipelined requests come back as four strictly framed answers, in order";
  const last = PIPELINE.length - 1;
  const wire = PIPELINE.map(
    (p, i) =>
      `${p.request} HTTP/1.1\r\nHost: ${host}:${port}\r\n${p.headers ?? ""}` +
      `${i === last ? "Connection: close\r\n" : ""}\r\n${p.payload ?? ""}`,
  ).join("");
  try {
    const text = await rawText(host, port, wire, timeoutMs);
    const answers = parseStrict(text);
    if (answers.length !== PIPELINE.length) {
      return [{ check, detail: `${answers.length} answers to ${PIPELINE.length} requests` }];
    }
    return answers.flatMap((answer, i) => {
      const expected = PIPELINE[i] as (typeof PIPELINE)[number];
      if (answer.status === expected.status && expected.body(answer.body)) return [];
      return [
        {
          check,
          detail: `answer ${i + 1} (${expected.request}): status ${answer.status}, body ${JSON.stringify(answer.body.slice(0, 60))}`,
        },
      ];
    });
  } catch (error) {
    return [{ check, detail: describeError(error) }];
  }
}
