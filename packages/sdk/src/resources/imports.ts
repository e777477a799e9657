import type { Call, DefaultOptions, MainCall, MainCore } from '../transport/core.js';
import type { MainBody, MainError, MainQuery } from '../transport/operations.js';
import type { RequestOptions } from '../transport/options.js';
import { ConflictError, isImportBusyBody, type ApiErrorObject } from '../errors/api-error.js';
import type { components } from '../generated/main.js';
import { ImportJob, type ImportJobState, type ImportKind } from '../imports/import-job.js';
import type { Sleep } from '../resilience/abort.js';

/**
 * The menu import body. `config` may be partial: the generated type marks `destroy_menu` and `publish_menu`
 * required because they have defaults (both `false`).
 */
export type MenuImportBody = Omit<MainBody<'POST /api/organizations/{id}/import/menu'>, 'config'> & {
  config?: Partial<components['schemas']['MenuImportConfig']>;
};
/** The client import body. */
export type ClientImportBody = MainBody<'POST /api/organizations/{id}/import/clients'>;
/** The order import body. */
export type OrderImportBody = MainBody<'POST /api/organizations/{id}/import/orders'>;
/** One order's outcome of an order import: `imported` (with `imported_at`), `ignored` or `error` (with `errors`). */
export type OrderImportResult = components['schemas']['OrderImportResult'];

/** Options of the client import. */
export interface ClientImportOptions {
  /** `true` deletes the clients created by earlier imports first (`from_scratch=true`). */
  fromScratch?: boolean;
}
/** Options of the order import. */
export interface OrderImportOptions {
  /** What to do with an order whose `external_id` was imported before: `update` it or `ignore` it (the default). */
  existing?: NonNullable<MainQuery<'POST /api/organizations/{id}/import/orders'>['existing']>;
}

/** The operations that queue an import job. */
type JobImport = 'POST /api/organizations/{id}/import/menu' | 'POST /api/organizations/{id}/import/clients';
/**
 * What an import that queues a job returns: its errors include the `busy` answer as a {@link ConflictError}
 * whatever the status the service gave it.
 */
export type JobImportCall<O, K extends JobImport> = Call<O, ImportJob, MainError<K> | ConflictError<number>>;

/**
 * The import `busy` answer as a {@link ConflictError}, whatever its status: the spec shows the body ("busy with job
 * data") but not the status, so a correct service may send it with a 200 as well as a 409.
 */
function busyError(operation: JobImport) {
  return (body: unknown, response: Response): ConflictError<number> | undefined => {
    if (!isImportBusyBody(body)) return undefined;
    const errors = ((body as { errors?: unknown }).errors ?? []) as ApiErrorObject[];
    return new ConflictError<number>({
      status: response.status,
      operation,
      errors: Array.isArray(errors) ? errors : [],
      headers: response.headers,
      body,
    });
  };
}

/**
 * Bulk imports: the menu and clients run as jobs (a handle to wait on), orders are imported at once with a result per order.
 * A running import of the same kind surfaces as {@link ConflictError} with `busy` and a `job` handle on the running job.
 * @example
 * const job = await api.imports.menu(1, { dishes: [{ name: 'Margherita', price: 9.5, category_name: 'Pizza' }] });
 * await job.wait({ onProgress: (s) => console.log(s.job_percent) });
 */
export class ImportsResource {
  readonly #core: MainCore;
  readonly #sleep: Sleep | undefined;

  constructor(core: MainCore, sleep?: Sleep) {
    this.#core = core;
    this.#sleep = sleep;
  }

  /** A handle on an import job known by id (for instance one started elsewhere). */
  job(kind: ImportKind, organizationId: number, jobId: string): ImportJob {
    const read = kind === 'menu' ? this.menuState.bind(this) : this.clientsState.bind(this);
    return new ImportJob(kind, organizationId, jobId, (options) => read(organizationId, options), this.#sleep);
  }

  #attachJob(kind: ImportKind, organizationId: number) {
    return (error: unknown): void => {
      if (error instanceof ConflictError && error.busy)
        error.job = this.job(kind, organizationId, String(error.busy.job_id));
    };
  }

  /**
   * Queues a menu import (it replaces the whole menu) and resolves to the job's handle.
   * @example
   * const job = await api.imports.menu(1, body); const state = await job.wait();
   */
  menu<O extends RequestOptions = DefaultOptions>(
    organizationId: number,
    body: MenuImportBody,
    options?: O,
  ): JobImportCall<O, 'POST /api/organizations/{id}/import/menu'> {
    const core = this.#core;
    return core.invoke(
      'POST /api/organizations/{id}/import/menu',
      {
        params: { path: { id: organizationId } },
        // The service fills the `config` defaults; the cast only drops the generated type's "required" on them.
        body: body as MainBody<'POST /api/organizations/{id}/import/menu'>,
      },
      options,
      {
        map: (data) => this.job('menu', organizationId, String(data.job_id)),
        onError: this.#attachJob('menu', organizationId),
        errorOf: busyError('POST /api/organizations/{id}/import/menu'),
      },
    );
  }

  /** Reads the state of the organization's current or last menu import. */
  menuState<O extends RequestOptions = DefaultOptions>(
    organizationId: number,
    options?: O,
  ): MainCall<O, 'GET /api/organizations/{id}/import/menu', ImportJobState> {
    const core = this.#core;
    return core.invoke<'GET /api/organizations/{id}/import/menu', O, ImportJobState>(
      'GET /api/organizations/{id}/import/menu',
      { params: { path: { id: organizationId } } },
      options,
    );
  }

  /** Queues a client import and resolves to the job's handle. */
  clients<O extends RequestOptions & ClientImportOptions = DefaultOptions>(
    organizationId: number,
    body: ClientImportBody,
    options?: O,
  ): JobImportCall<O, 'POST /api/organizations/{id}/import/clients'> {
    const core = this.#core;
    const query = options?.fromScratch === undefined ? undefined : { from_scratch: options.fromScratch };
    return core.invoke(
      'POST /api/organizations/{id}/import/clients',
      { params: { path: { id: organizationId }, query }, body },
      options,
      {
        map: (data) => this.job('clients', organizationId, String(data.job_id)),
        onError: this.#attachJob('clients', organizationId),
        errorOf: busyError('POST /api/organizations/{id}/import/clients'),
      },
    );
  }

  /** Reads the state of the organization's current or last client import. */
  clientsState<O extends RequestOptions = DefaultOptions>(
    organizationId: number,
    options?: O,
  ): MainCall<O, 'GET /api/organizations/{id}/import/clients', ImportJobState> {
    const core = this.#core;
    return core.invoke<'GET /api/organizations/{id}/import/clients', O, ImportJobState>(
      'GET /api/organizations/{id}/import/clients',
      { params: { path: { id: organizationId } } },
      options,
    );
  }

  /**
   * Imports orders at once; `organization_import` holds one typed result per submitted order.
   * @example
   * const { organization_import } = await api.imports.orders(1, { orders }, { existing: 'update' });
   * const failed = organization_import.filter((r) => r.status === 'error');
   */
  orders<O extends RequestOptions & OrderImportOptions = DefaultOptions>(
    organizationId: number,
    body: OrderImportBody,
    options?: O,
  ): MainCall<O, 'POST /api/organizations/{id}/import/orders'> {
    const core = this.#core;
    const query = options?.existing === undefined ? undefined : { existing: options.existing };
    return core.invoke(
      'POST /api/organizations/{id}/import/orders',
      { params: { path: { id: organizationId }, query }, body },
      options,
    );
  }
}
