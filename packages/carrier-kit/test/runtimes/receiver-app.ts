/**
 * The carrier kit's fetch receiver as an edge app, the same code in every runtime (workerd, Bun): signed
 * callbacks at `/callbacks`, what it processed at `/stats`, and `/clock?now=MS` to read time as the mock's
 * virtual clock does (the signature's timestamp is checked against it). Nothing but web globals and the kit.
 */
import { createCallbackReceiver, systemScheduler, type CallbackEvent, type ReceiverStats } from '@restoapi/carrier-kit';

/** What `/stats` answers. */
export interface ReceiverReport {
  stats: ReceiverStats;
  /** The events the handlers saw, as `type order_id`. */
  events: string[];
}

/** A fetch handler around a receiver that verifies signatures with `secret` and acknowledges after processing. */
export function createReceiverApp(secret: string): (request: Request) => Promise<Response> {
  const events: string[] = [];
  const record = (event: CallbackEvent): void => void events.push(`${event.type} ${event.order_id}`);
  let offsetMs = 0;
  const receiver = createCallbackReceiver({
    signing: { secret },
    scheduler: { ...systemScheduler, now: () => Date.now() + offsetMs },
    // The answer waits for the handlers, so a 2xx here means the callback was processed.
    ack: 'after-processing',
    handlers: { order_created: record, order_status_changed: record },
  });
  return async (request) => {
    const { pathname, searchParams } = new URL(request.url);
    if (pathname === '/callbacks') return receiver.handle(request);
    if (pathname === '/clock') {
      offsetMs = Number(searchParams.get('now')) - Date.now();
      return new Response(null, { status: 204 });
    }
    if (pathname === '/stats') return Response.json({ stats: receiver.stats, events } satisfies ReceiverReport);
    return new Response('ready');
  };
}
