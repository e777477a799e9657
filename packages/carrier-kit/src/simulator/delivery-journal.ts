import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../outbox/atomic-file.js';

/** A delivery the simulator drives, kept so a restart finds it again (the carrier API lists no orders). */
export interface JournaledDelivery {
  secureId: string;
  orderId: number;
}

/** The deliveries under way of one simulator, in a file beside its outbox. */
export interface DeliveryJournal {
  /** The deliveries left under way by the last run. */
  load(): Promise<JournaledDelivery[]>;
  /** Records a delivery before its courier starts; durable when it resolves. */
  add(delivery: JournaledDelivery): Promise<void>;
  /** Forgets a delivery that ended. */
  remove(secureId: string): Promise<void>;
}

/**
 * Creates the delivery journal of a simulator on its file outbox: one small JSON file, replaced atomically
 * on every change. Without it, an order whose courier was assigned (the update sent, so nothing left in the
 * outbox) and which was waiting for its pick-up when the process died would stay under way for good: no
 * callback comes until the carrier moves it.
 */
export function createDeliveryJournal(file: string): DeliveryJournal {
  const current = new Map<string, JournaledDelivery>();
  let chain: Promise<void> = Promise.resolve();
  // Writes one after the other, each of the whole list as it is then.
  const save = (): Promise<void> =>
    (chain = chain
      .catch(() => undefined)
      .then(() => writeFileAtomic(file, `${JSON.stringify([...current.values()])}\n`)));
  return {
    async load() {
      try {
        const list = JSON.parse(await readFile(file, 'utf8')) as JournaledDelivery[];
        for (const delivery of list) current.set(delivery.secureId, delivery);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      return [...current.values()];
    },
    add(delivery) {
      current.set(delivery.secureId, delivery);
      return save();
    },
    remove(secureId) {
      return current.delete(secureId) ? save() : Promise.resolve();
    },
  };
}
