/**
 * @restoapi/contract-tests: black-box contract tests that any implementation
 * of the Online Restaurant Ordering Service API can be checked against,
 * traceable to every clause of the written specification.
 */
export {
  groupWarningsByDecision,
  parseShard,
  runContractSuite,
  selectTests,
  selectionName,
  shardOf,
} from './runner/run.js';
export { MergeError, mergeResultDirs, mergeResults } from './reports/merge.js';
export { curlOf, TOKEN_PLACEHOLDER } from './runner/curl.js';
export { CHECKS, VerdictSettings, relaxationLines, type CheckName, type Relaxation } from './runner/verdict.js';
export type {
  ClauseCoverage,
  DecisionCoverage,
  DecisionWarning,
  DecisionWarningGroup,
  Need,
  OperationCoverage,
  Profile,
  Reporter,
  RunOptions,
  Selection,
  Shard,
  StatefulOptions,
  SuiteResult,
  TestKind,
  TestResult,
  TestStatus,
  Violation,
} from './runner/types.js';
export {
  CONFIG_SCHEMA,
  loadConfig,
  resolveConfig,
  validateConfig,
  ROLES,
  type CheckSetting,
  type ContractConfig,
  type Credentials,
  type Point,
  type ResolvedConfig,
  type Role,
} from './config.js';
export { CLAUSES, SPEC_HASH } from './generated/clauses.js';
export type { Clause } from './clause-types.js';
export { allTests } from './tests/index.js';
export {
  clauseFigures,
  consoleReporter,
  consoleSummary,
  fileReporter,
  junitXml,
  matrixHtml,
  matrixMarkdown,
  operationFigures,
  progressReporter,
  type ProgressOptions,
  type ProgressReporter,
  type ProgressStream,
} from './reports/reports.js';
export { ControlClient, ControlError } from './control.js';
export { CallbackReceiver, type ReceivedCallback } from './runner/receiver.js';
export { TestContext, Client, type ContractTest, type SessionInfo } from './runner/context.js';
export type { ApiResponse, RequestSpec } from './runner/http.js';
export {
  CARRIER_CHECKS,
  CarrierUnreachableError,
  DEFAULT_CARRIER_TIMINGS,
  judgeCarrier,
  recordCarrier,
  runCarrierConformance,
  type CarrierRecording,
  type CarrierRunOptions,
  type CarrierTimings,
} from './carrier/run-carrier.js';
export { CARRIER_DECISIONS, type Departure, type Finding } from './carrier/carrier-checks.js';
export { ServiceSideError, type CarrierCall } from './carrier/service-side.js';
