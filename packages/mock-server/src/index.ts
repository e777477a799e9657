/**
 * @restoapi/mock-server: a stateful mock of the Online Restaurant Ordering
 * Service API. The engine answers fetch `Request`s; `./node` serves it over
 * HTTP and `./msw` plugs it into MSW.
 */
import { attachCallbackDispatcher } from './callbacks/callback-dispatcher.js';
import { createControlApi, type ControlServices } from './control/control-api.js';
import { createFaultInjector } from './control/faults.js';
import { createMockEngine, type EngineRoute, type MockEngine } from './engine/engine.js';
import type { MockConfig } from './engine/runtime.js';
import { urlCheckedOutbound, type OutboundPolicy, type OutboundServices } from './net/outbound-policy.js';
import { handlers } from './handlers.js';
import { photoRoute } from './menu/photo-route.js';
import { demoSeed } from './seeds/demo-seed.js';
import type { MockStateJson } from './state/mock-state.js';
import { sessionFront, type Mock } from './sessions/session-front.js';
import { SESSION_HEADER, SessionRegistry, type SessionOptions } from './sessions/session-registry.js';

export {
  EngineResponse,
  createMockEngine,
  sharedApiValidator,
  type EngineAnswer,
  type EngineRequest,
  type EngineRoute,
  type HeaderReader,
  type MockEngine,
  type MockEngineOptions,
  type OperationSet,
} from './engine/engine.js';
export { DEFAULT_CONFIG, type MockConfig, type MockRuntime } from './engine/runtime.js';
export { HttpError } from './engine/http-error.js';
export { CONTROL_TOKEN_HEADER } from './control/control-api.js';
export {
  DEFAULT_OUTBOUND_POLICY,
  OutboundRefused,
  urlCheckedOutbound,
  type OutboundMode,
  type OutboundPolicy,
  type OutboundRule,
  type OutboundServices,
} from './net/outbound-policy.js';
export type { MockStateJson } from './state/mock-state.js';
export {
  FixtureError,
  assertFixture,
  validateFixture,
  type FixtureIssue,
  type FixtureValidation,
} from './state/fixture.js';
export { handlers } from './handlers.js';
export { DEMO_LOGINS, demoSeed } from './seeds/demo-seed.js';
export { demoSeedWithOrders } from './seeds/crowded-seed.js';
/** The typed control-API client lives in @restoapi/openapi; re-exported where it was first published. */
export { createControlClient, type ControlClient, type ControlClientOptions } from '@restoapi/openapi';
export { createFaultInjector, type Fault, type FaultInjector, type FaultInput } from './control/faults.js';
export { attachCallbackDispatcher, type CallbackDispatcher } from './callbacks/callback-dispatcher.js';
export type { Mock } from './sessions/session-front.js';
export {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION,
  DEFAULT_SESSION_TTL_MS,
  SESSION_HEADER,
  SessionRegistry,
  isSessionName,
  type SessionInfo,
  type SessionOptions,
} from './sessions/session-registry.js';

/** Options of {@link createMock}. */
export interface MockOptions {
  /** Initial state: a full state export (`GET /__mock/state`); the demo seed when absent. */
  state?: MockStateJson;
  /** Settings (import duration, limits, response validation…). */
  config?: Partial<MockConfig>;
  /** Check every answer against the document and fail loudly on drift. */
  validateResponses?: boolean;
  /** Base URL the instance is reached at, for absolute links. */
  baseUrl?: string;
  /** Called after every state change (the Node adapter saves the state file). */
  onChange?: (mock: MockEngine) => void;
  /** Extra routes tried before the API. */
  routes?: EngineRoute[];
  /** The `fetch` carrier callbacks are sent with (default: the global one). */
  callbackFetch?: typeof fetch;
  /**
   * Protects the control API (`/__mock/*`): every control request must send `Authorization: Bearer <token>`
   * (or `X-Mock-Control-Token`), else 401. Open when absent (a mock on loopback for one developer).
   */
  controlToken?: string;
  /**
   * Where the mock may send requests of its own (default: remote photos from public addresses only, callbacks
   * anywhere). A test that serves photos on loopback says so: `{ photos: { mode: 'any', allowHosts: [] } }`.
   */
  outboundPolicy?: Partial<OutboundPolicy>;
  /** The outbound requests' rules and fetches, whole (the Node server passes its own, which checks sockets). */
  outbound?: OutboundServices;
  /** Limits of the named sessions (`X-Mock-Session`): how many at once, and when an idle one expires. */
  sessions?: SessionOptions;
  /**
   * What a named session starts from: a state export, or a function returning one; read once, when the
   * first named session is made. Default: the demo seed when `state` is absent, otherwise `state` itself as
   * it is at that moment (the default session's rows are the very objects of `state`, so pass a
   * `sessionSeed` when the default session changes data before the first named session exists).
   */
  sessionSeed?: MockStateJson | (() => MockStateJson);
}

/** @deprecated Another name of {@link MockEngine}, the type of a mock instance: use `MockEngine`. */
export type RestoMock = MockEngine;

/**
 * Creates a mock in memory. Each test can have its own: instances share nothing but compiled schemas. A
 * request with `X-Mock-Session: NAME` (or `mock.session(NAME)`) works on that session's own instance,
 * created from the same seed on first use.
 * @example
 * const mock = createMock();
 * const res = await mock.fetch('http://localhost:4010/api/session?login=admin@pizza.demo&password=demo', { method: 'POST' });
 */
export function createMock(options: MockOptions = {}): Mock {
  const createdAt = new Date();
  const { instance, control } = createInstance(options, options.state ?? demoSeed(createdAt));
  // Read once, on the first named session: a mock that never has one (most tests, a 100,000-order bench)
  // pays nothing. The demo seed is made again for the same instant, so it holds the same data.
  const seedOfSessions = (): MockStateJson => {
    const given = options.sessionSeed ?? options.state;
    if (typeof given === 'function') return given();
    return given ?? demoSeed(createdAt);
  };
  let seedText: string | undefined;
  const sessions: SessionRegistry = new SessionRegistry({
    ...options.sessions,
    defaultInstance: instance,
    create(name) {
      seedText ??= JSON.stringify(seedOfSessions());
      const session = createInstance(options, JSON.parse(seedText) as MockStateJson, name, sessions).instance;
      session.runtime.baseUrl = instance.runtime.baseUrl;
      // A new session starts at the default session's time (a server started with --clock keeps it).
      void session.runtime.clock.set(instance.runtime.clock.now(), instance.runtime.clock.frozen);
      return session;
    },
  });
  control.sessions = sessions;
  return sessionFront(instance, sessions);
}

/** One whole mock instance: engine, control API, faults and callback dispatcher. */
function createInstance(
  options: MockOptions,
  state: MockStateJson,
  session?: string,
  sessions?: SessionRegistry,
): { instance: MockEngine; control: ControlServices } {
  const faults = createFaultInjector();
  const control: ControlServices = { faults, ...(sessions ? { sessions } : {}) };
  const mock = createMockEngine({
    handlers,
    state,
    config: {
      ...options.config,
      ...(options.validateResponses !== undefined ? { validateResponses: options.validateResponses } : {}),
    },
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    // Only the default session is persisted (`--state`): named sessions are scratch worlds of a test run.
    ...(options.onChange && session === undefined ? { onChange: options.onChange } : {}),
    // The control API owns /__mock; uploaded photos are served at the URLs of the `photo` objects.
    operationSets: [createControlApi(control, options.controlToken)],
    outbound: options.outbound ?? urlCheckedOutbound(options.outboundPolicy),
    routes: [...(options.routes ?? []), photoRoute],
    // The light hook: faults need only the method and URL, and cost nothing while none is armed.
    preflight: faults.intercept,
  });
  // The control API drives the clock through the dispatcher, which needs the engine first.
  const dispatcher = attachCallbackDispatcher(mock, {
    ...(options.callbackFetch ? { fetch: options.callbackFetch } : {}),
    // A carrier answering a session's callback names the session back (see @restoapi/carrier-kit `mockSession`).
    ...(session !== undefined ? { headers: { [SESSION_HEADER]: session } } : {}),
  });
  control.callbacks = dispatcher;
  const close = mock.close.bind(mock);
  // Closing ends the instance's timers and its callback retries.
  mock.close = () => {
    dispatcher.detach();
    close();
  };
  return { instance: mock, control };
}
