export { readBodyText, TOO_LARGE } from "./body.ts";
export {
  CASES,
  type CaseExpectation,
  type CaseRequest,
  type ContractCase,
  jsonOfSize,
} from "./cases.ts";
export { ECHO_BODY, ECHO_FIXTURE } from "./fixtures.ts";
export { type HostileOptions, type HostileReport, hostile } from "./hostile.ts";
export { commandLineOf, descendantsOf, executableOf, pidsListeningOn } from "./proc.ts";
export {
  APPS,
  type AppName,
  type AppSpec,
  baselineOf,
  type Framework,
  findApp,
  getApp,
  type Runtime,
} from "./registry.ts";
export { detectRuntime, type RuntimeIdentity } from "./runtime.ts";
export {
  DEFAULT_SCENARIO,
  findScenario,
  SCENARIOS,
  type Scenario,
  type ScenarioName,
} from "./scenarios.ts";
export {
  API_MESSAGE,
  type ApiPayload,
  apiPayload,
  ERRORS,
  type ErrorBody,
  type ErrorMessage,
  errorBody,
  GREETING,
  isJsonContentType,
  jsonDocumentError,
  MAX_BODY_BYTES,
  MAX_JSON_DEPTH,
  ROUTES,
} from "./spec.ts";
export {
  apiPayloadProblems,
  checkCases,
  checkServingExecutable,
  checkStreamingLimit,
  type Fetcher,
  type VerifyOptions,
  type Violation,
  verify,
} from "./verify.ts";
