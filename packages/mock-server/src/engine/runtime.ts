import type { ApiDescription, controlComponents } from '@restoapi/openapi';
import type { MockStateTables, NotificationRecord, OrderRecord } from '../state/mock-state.js';
import type { OutboundServices } from '../net/outbound-policy.js';
import type { VirtualClock } from './clock.js';

/** Settings of a mock instance that tests and the control API may change (the control API's `Config`). */
export type MockConfig = controlComponents['schemas']['Config'];

/** The defaults: the decisions of openapi/DECISIONS.md. */
export const DEFAULT_CONFIG: MockConfig = {
  importDurationMs: 3_000,
  tokenTtlMs: 30 * 24 * 60 * 60 * 1000,
  maxBodyBytes: 10 * 1024 * 1024,
  maxPhotoBytes: 10 * 1024 * 1024,
  maxImportRecords: 10_000,
  // In code, room for the benchmarks' 500,000-order worlds; the CLI, run on shared boxes, sets 250,000.
  maxRecords: 5_000_000,
  maxConcurrentImports: 4,
  maxRemotePhotos: 100,
  remotePhotoConcurrency: 4,
  callbackTimeoutMs: 10_000,
  validateResponses: false,
};

/** What handlers work with: the state, virtual time, settings and shared services. */
export interface MockRuntime {
  state: MockStateTables;
  clock: VirtualClock;
  config: MockConfig;
  api: ApiDescription;
  /** Base URL the instance is reached at (for absolute URLs such as photo links). */
  baseUrl: string;
  /** An unguessable token (256 bits, base64url). */
  secureToken(): string;
  /** The virtual time as an ISO 8601 string. */
  nowIso(): string;
  /** Persists the state when the instance has a state file (debounced by the engine). */
  changed(): void;
  /** Records an SMS or e-mail in the outbox (`GET /__mock/notifications`). */
  notify(notification: Omit<NotificationRecord, 'id' | 'created_at'>): NotificationRecord;
  /** Order lifecycle events; the callbacks module listens to send carrier callbacks. */
  events: OrderEvents;
  /** Where the instance may send requests of its own (remote photos, carrier callbacks), and how. */
  outbound: OutboundServices;
}

/** Something that happened to an order that a carrier may need to hear about. */
export type OrderEvent =
  | { type: 'order_created'; order: OrderRecord }
  | { type: 'order_status_changed'; order: OrderRecord; previous: OrderRecord['status'] };

/** A tiny synchronous event hub: listeners run inside the request that caused the event. */
export class OrderEvents {
  private readonly listeners: ((event: OrderEvent) => void)[] = [];

  /** Adds a listener; returns a function that removes it. */
  on(listener: (event: OrderEvent) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }

  /** Tells every listener. */
  emit(event: OrderEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

/** 256 bits of randomness, base64url: sessions and carrier `secure_id`s. */
export function secureToken(): string {
  // Web Crypto, not node:crypto: the engine also runs in browsers under MSW.
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(32));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
