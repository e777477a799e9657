import type { DecisionRef } from '@restoapi/openapi';
import type { ContractConfig, Role } from '../config.js';
import type { Relaxation } from './verdict.js';

/** `spec` checks what the written specification states; `full` also every decision of openapi/DECISIONS.md. */
export type Profile = 'spec' | 'full';

/** What a test needs besides the base URL; a test whose needs cannot be met is skipped with the reason. */
export type Need = 'controlApi' | 'mutations' | 'menuImport' | 'foreignOrganization' | 'carrierApi' | `role:${Role}`;

/** Kinds of tests, used by selections and reports. */
export type TestKind = 'conformance' | 'behaviour' | 'negative' | 'decision' | 'stateful';

/**
 * How one test ended. `incomplete`: the service answered too slowly for the test to finish within its budget (or
 * a request outlived `timeouts.requestMs`); it fails nothing, and its warning says how far it got.
 */
export type TestStatus = 'passed' | 'failed' | 'skipped' | 'incomplete';

/** A schema problem found in a response. */
export interface Violation {
  operationId: string;
  method: string;
  path: string;
  status: number;
  message: string;
  /** Only a decision of the document is broken: a failure under `full`, a warning under `spec`. */
  decisionOnly: boolean;
  /** For `decisionOnly` violations: the decision broken (pointer, DECISIONS.md entry, summary). */
  decision?: DecisionRef;
}

/**
 * An answer that departs from the document only where the document decided (`x-decision`): a warning
 * under `spec` (a failure under `full`), kept structured so reports can group warnings by decision.
 */
export interface DecisionWarning {
  /** JSON Pointer of the `x-decision` marker, as openapi/DECISIONS.md lists it. */
  decision: string;
  /** The decision's entry in openapi/DECISIONS.md: `DECISIONS.md#<anchor>`. */
  entry: string;
  /** The decision's first sentence. */
  summary: string;
  operationId: string;
  method: string;
  /** Path and query of the request. */
  path: string;
  status: number;
  /** What departed: the pointer in the answer and the problem. */
  message: string;
}

/** The warnings of a run about one decision: how often, in which tests and operations. */
export interface DecisionWarningGroup {
  decision: string;
  entry: string;
  summary: string;
  count: number;
  tests: string[];
  operations: string[];
  /** Up to three of its messages, as examples. */
  examples: string[];
}

export interface TestResult {
  id: string;
  title: string;
  kind: TestKind;
  profile: Profile;
  clauses: string[];
  decisions: string[];
  operations: string[];
  status: TestStatus;
  durationMs: number;
  /** Why it failed (assertion and schema violations). */
  failure?: string;
  /** Why it was skipped. */
  skipReason?: string;
  /** Why it ended incomplete (the service was slower than its budget allowed). */
  incompleteReason?: string;
  /** Deviations from decisions seen under the `spec` profile, and other remarks. */
  warnings: string[];
  /** The deviations from decisions among `warnings`, structured (absent in results of older versions). */
  decisionWarnings?: DecisionWarning[];
  /** Requests made: `METHOD path → status`. */
  requests: number;
  /** For a failed test: curl commands that send its failing requests again (secrets as placeholders). */
  reproducers?: string[];
  /** For a failed test: its last requests and the answers they got (secrets as placeholders). */
  exchanges?: ShownExchange[];
}

/** A request of a failed test and its answer, as the reports show them. */
export interface ShownExchange {
  /** `METHOD url`, a token in the query as `$RESTOAPI_TOKEN`. */
  request: string;
  /** The request body as text (passwords of a form as `$RESTOAPI_SECRET`), when it had one. */
  body?: string;
  status: number;
  /** The answer's text, cut to a readable length. */
  answer: string;
  /** Whether the answer broke the document or was a 5xx. */
  faulty: boolean;
}

/** Calls and statuses seen per operation. */
export interface OperationCoverage {
  operationId: string;
  method: string;
  route: string;
  documentedStatuses: string[];
  seenStatuses: Record<string, number>;
  calls: number;
}

export interface ClauseCoverage {
  id: string;
  section: string;
  text: string;
  notShown: boolean;
  tests: { id: string; status: TestStatus }[];
  /** `covered`: at least one test passed and none failed; `failed`: a test failed; `skipped`: tests exist but none ran; `uncovered`: no test. */
  state: 'covered' | 'failed' | 'skipped' | 'uncovered';
}

export interface DecisionCoverage {
  pointer: string;
  where: string;
  tests: { id: string; status: TestStatus }[];
}

/** The structured outcome of {@link runContractSuite}. */
export interface SuiteResult {
  baseUrl: string;
  carrierBaseUrl: string;
  profile: Profile;
  selection: string;
  seed: number;
  /** The share of the tests this run made (`--shard k/n`), when it was one. */
  shard?: Shard;
  startedAt: string;
  durationMs: number;
  results: TestResult[];
  summary: {
    total: number;
    passed: number;
    failed: number;
    skipped: number;
    /** Tests stopped unfinished because the service was slow (absent in results of older versions). */
    incomplete?: number;
    warnings: number;
  };
  operations: OperationCoverage[];
  clauses: ClauseCoverage[];
  decisions: DecisionCoverage[];
  /** The decision warnings of all tests, one group per decision, most frequent first. */
  warningsByDecision: DecisionWarningGroup[];
  /** What the configuration did not let the run check (checks or decisions off, extra statuses accepted). */
  relaxations: Relaxation[];
  /** true when no test failed and at least one passed. */
  ok: boolean;
}

/** A reporter hears when the run starts, each test as it starts and ends, and gets the whole result at the end. */
export interface Reporter {
  /** Before the first test: how many tests the run will make. */
  onStart?(info: { total: number; profile: Profile }): void;
  /** A test begins (`index` counts from 0). */
  onTestStart?(test: { id: string; title: string; kind: TestKind }, index: number): void;
  onTestEnd?(result: TestResult): void;
  onEnd?(result: SuiteResult): void | Promise<void>;
}

/** Which tests to run: a named selection or a filter. */
export type Selection =
  | 'all'
  | 'schema-only'
  | 'behaviour'
  | 'negative'
  | 'stateful'
  | {
      /** Test ids or patterns (`*` wildcard). */
      ids?: string[];
      /** Clause ids or prefixes ending in `*` (`Limits *`). */
      clauses?: string[];
      /** operationIds. */
      operations?: string[];
      kinds?: TestKind[];
    };

/** Options of {@link runContractSuite}. */
export interface RunOptions {
  /** Base URL of the main API, e.g. `https://staging.example.com` (paths start with `/api`). */
  baseUrl: string;
  /** Base URL of the carrier API; default `${baseUrl}/api-delivery`. */
  carrierBaseUrl?: string;
  config: ContractConfig;
  profile?: Profile;
  selection?: Selection;
  /** The fetch to use (e.g. an in-process mock's `fetch`); default the global one. */
  fetch?: typeof fetch;
  reporters?: Reporter[];
  /** Seed of the property-based tests; random (and printed) when absent. */
  seed?: number;
  /** What a 501 answer means: `fail` (default: the operation is missing) or `skip` the test. */
  notImplemented?: 'fail' | 'skip';
  /** Run only the k-th of n deterministic shares of the selected tests. */
  shard?: Shard;
  /** Settings of the stateful tests; they override the configuration's `stateful`. */
  stateful?: StatefulOptions;
  /** Show tokens and passwords in curl reproducers instead of placeholders. */
  showSecrets?: boolean;
}

/** One of n shares of the tests (1-based index). */
export interface Shard {
  index: number;
  total: number;
}

/** Settings of the model-based stateful tests. */
export interface StatefulOptions {
  /** Command sequences generated per stateful test. */
  runs?: number;
  /** The longest sequence generated. */
  maxCommands?: number;
  /** Replays exactly one sequence: the id of the stateful test and the fast-check path it printed. */
  replay?: { testId: string; path: string };
  /** A directory: each failing sequence is also written there as an Arazzo 1.0.1 workflow (`<test id>.arazzo.json`). */
  arazzo?: string;
}

export type { ContractConfig, Role };
