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
import { handlers } from './handlers.js';
import { photoRoute } from './menu/photo-route.js';
import { demoSeed } from './seeds/demo-seed.js';
import type { MockStateJson } from './state/mock-state.js';

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
/** The typed control-API client lives in @restoapi/openapi; re-exported where it was first published. */
export { createControlClient, type ControlClient, type ControlClientOptions } from '@restoapi/openapi';
export { createFaultInjector, type Fault, type FaultInjector, type FaultInput } from './control/faults.js';
export { attachCallbackDispatcher, type CallbackDispatcher } from './callbacks/callback-dispatcher.js';

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
}

/** @deprecated Another name of {@link MockEngine}, the type of a mock instance: use `MockEngine`. */
export type RestoMock = MockEngine;

/**
 * Creates a mock instance in memory. Each test can have its own: instances share nothing but compiled schemas.
 * @example
 * const mock = createMock();
 * const res = await mock.fetch('http://localhost:4010/api/session?login=admin@pizza.demo&password=demo', { method: 'POST' });
 */
export function createMock(options: MockOptions = {}): MockEngine {
  const faults = createFaultInjector();
  const control: ControlServices = { faults };
  const mock = createMockEngine({
    handlers,
    state: options.state ?? demoSeed(),
    config: {
      ...options.config,
      ...(options.validateResponses !== undefined ? { validateResponses: options.validateResponses } : {}),
    },
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.onChange ? { onChange: options.onChange } : {}),
    // The control API owns /__mock; uploaded photos are served at the URLs of the `photo` objects.
    operationSets: [createControlApi(control)],
    routes: [...(options.routes ?? []), photoRoute],
    // The light hook: faults need only the method and URL, and cost nothing while none is armed.
    preflight: faults.intercept,
  });
  // The control API drives the clock through the dispatcher, which needs the engine first.
  control.callbacks = attachCallbackDispatcher(mock, options.callbackFetch ? { fetch: options.callbackFetch } : {});
  return mock;
}
