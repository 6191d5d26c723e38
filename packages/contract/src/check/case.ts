// What a contract case is: a request and the exact answer expected. A leaf of check/: cases.ts
// builds the cases, stream-cases.ts the streamed routes', and verify.ts sends them.

import type { SSE_CONTENT_TYPE, STREAM_CONTENT_TYPE } from "../spec/streams.ts";

export interface CaseRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface CaseExpectation {
  readonly status: number;
  readonly mediaType:
    | "application/json"
    | "text/plain"
    | typeof SSE_CONTENT_TYPE
    | typeof STREAM_CONTENT_TYPE;
  /** Exact body text; undefined when the body is dynamic and checked separately. */
  readonly body?: string;
  /** A body that changes per request, checked by a function of verify.ts instead. */
  readonly dynamic?: "api" | "userUpdate";
  /** No Content-Type at all is accepted too (a HEAD answer may leave it out). */
  readonly mediaTypeOptional?: true;
}

export interface ContractCase {
  readonly name: string;
  /** True for requests a client gets wrong: the hostile-input check sends these in bulk. */
  readonly bad: boolean;
  readonly request: CaseRequest;
  readonly expect: CaseExpectation;
}
