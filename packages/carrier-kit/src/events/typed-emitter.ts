/** A listener of one event; may be async (the emitter awaits it when asked to). */
export type Listener<T> = (payload: T) => unknown;

/** A small typed event emitter that works in every runtime (no `node:events`). */
export class TypedEmitter<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();

  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof Events>(name: K, listener: Listener<Events[K]>): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => this.off(name, listener);
  }

  /** Adds a listener that runs once. */
  once<K extends keyof Events>(name: K, listener: Listener<Events[K]>): () => void {
    const off = this.on(name, (payload) => {
      off();
      return listener(payload);
    });
    return off;
  }

  /** Removes a listener. */
  off<K extends keyof Events>(name: K, listener: Listener<Events[K]>): void {
    this.listeners.get(name)?.delete(listener as Listener<never>);
  }

  /** Number of listeners of an event. */
  listenerCount(name: keyof Events): number {
    return this.listeners.get(name)?.size ?? 0;
  }

  /**
   * Calls every listener in order and awaits each; a listener that throws is reported to `onError`
   * and does not stop the others.
   */
  async emit<K extends keyof Events>(name: K, payload: Events[K], onError?: (error: unknown) => void): Promise<void> {
    for (const listener of [...(this.listeners.get(name) ?? [])]) {
      try {
        await (listener as Listener<Events[K]>)(payload);
      } catch (error) {
        onError?.(error);
      }
    }
  }
}
