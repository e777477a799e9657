import type { HandlerMap } from './engine/handler.js';
import { sessionHandlers } from './session/session-handlers.js';

/** Every operation the mock implements, by operationId (a test checks none of the document is missing). */
export const handlers: HandlerMap = {
  ...sessionHandlers,
};
