// "@bench/contract/check": the verifier's side of the contract, what checks an app rather than
// what an app serves: every case with its exact answer (building them makes ~1 MiB of strings),
// verify(), the hostile-input check, the raw-wire and database checks, /proc look-ups. The
// harness, the tests and the CLI import it; no app does (test/app-bundles.test.ts).

export {
  checkAfterResetStorm,
  checkBesideStalledTls,
  VERIFY_RESETS,
  VERIFY_STALLS,
} from "./check/abuse-checks.ts";
export {
  CASES,
  type CaseExpectation,
  type CaseRequest,
  type ContractCase,
  jsonOfSize,
} from "./check/cases.ts";
export { checkDatabase, QUERIES_CASES, worldProblems } from "./check/db-checks.ts";
export {
  type DbProbe,
  drawRewrite,
  type Rewrite,
  rewriteWorlds,
  sqliteProbe,
} from "./check/db-probes.ts";
export {
  alpnChoice,
  checkH2cRefused,
  checkH2Refused,
  h2cStatus,
  h2Fetcher,
  openH2,
  openH2c,
} from "./check/h2-checks.ts";
export {
  abandonBodies,
  EXTRA_ATTACKS,
  type HostileOptions,
  type HostileReport,
  hostile,
  survived,
} from "./check/hostile.ts";
export {
  ask,
  checkMiddleware,
  currentEtag,
  type WireExpectation,
  wireProblems,
} from "./check/middleware-checks.ts";
export { apiPayloadProblems, userUpdateProblems } from "./check/payloads.ts";
export { pgProbe } from "./check/pg-probe.ts";
export { checkPipelined, parseStrict, type StrictAnswer } from "./check/pipeline.ts";
export {
  commandLineOf,
  connectionsHeld,
  descendantsOf,
  executableOf,
  parentOf,
  pidsListeningOn,
  servesAddress,
} from "./check/proc.ts";
export {
  checkStreamed,
  sseBody,
  streamBody,
  streamCases,
  streamedProblems,
} from "./check/stream-cases.ts";
export {
  checkCases,
  checkOverH2,
  checkOverH2c,
  checkOverTls,
  checkServingExecutable,
  checkStreamingLimit,
  onRegistryPort,
  type ProcessProbe,
  type VerifyOptions,
  verify,
} from "./check/verify.ts";
export { type Fetcher, mediaTypeOf, type Violation } from "./check/violation.ts";
export {
  checkHeadMatchesGet,
  checkHostHeaders,
  HEAD_PATHS,
  HOST_VARIANTS,
  headProblems,
  parseAnswer,
  type RawAnswer,
  rawExchange,
  rawText,
} from "./check/wire.ts";
