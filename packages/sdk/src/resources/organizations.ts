import type { DefaultOptions, MainCall, MainCore } from '../transport/core.js';
import type { MainBody, MainData } from '../transport/operations.js';
import type { RequestOptions } from '../transport/options.js';
import { holdsRecord, readBack, type ReadBackOptions, type RecordResult } from './read-back.js';

/** The editable fields of an organization (`PUT /api/organizations/{id}` without its root key). */
export type OrganizationUpdateFields = MainBody<'PUT /api/organizations/{id}'>['organization'];

/** What `update` resolves to for call options `O` on a client with read-back `R` (`{ organization }`). */
export type OrganizationChange<R extends boolean, O> = RecordResult<MainData<'GET /api/organizations/{id}'>, R, O>;
/**
 * What `publish` resolves to: `{ menu }` (what was published) when the answer says so, else `undefined`: the spec
 * shows no answer body for publish, and nothing can read the publication back.
 */
export type MenuPublicationResult = MainData<'POST /api/organizations/{id}/publish'> | undefined;

/**
 * Organizations: the caller's organizations, their settings, and menu publication.
 * @example
 * const { organizations } = await api.organizations.list();
 */
export class OrganizationsResource<R extends boolean = true> {
  readonly #core: MainCore;
  readonly #readBack: boolean;

  constructor(core: MainCore, readBack = true) {
    this.#core = core;
    this.#readBack = readBack;
  }

  /** Lists the organizations the caller can access. */
  list<O extends RequestOptions = DefaultOptions>(options?: O): MainCall<O, 'GET /api/organizations'> {
    const core = this.#core;
    return core.invoke('GET /api/organizations', {}, options);
  }

  /** Reads one organization. */
  get<O extends RequestOptions = DefaultOptions>(id: number, options?: O): MainCall<O, 'GET /api/organizations/{id}'> {
    const core = this.#core;
    return core.invoke('GET /api/organizations/{id}', { params: { path: { id } } }, options);
  }

  /**
   * Changes name, social_network, about or phone; resolves to the organization (read back with one GET when the
   * answer holds none, unless `readBack: false`).
   */
  update<O extends RequestOptions & ReadBackOptions = DefaultOptions>(
    id: number,
    fields: OrganizationUpdateFields,
    options?: O,
  ): MainCall<O, 'PUT /api/organizations/{id}', OrganizationChange<R, O>> {
    const core = this.#core;
    return core.invoke(
      'PUT /api/organizations/{id}',
      { params: { path: { id } }, body: { organization: fields } },
      options,
      { after: readBack('organization', this.#readBack, options, (o) => this.get(id, o)) },
    );
  }

  /** Publishes the menu drafts to the storefront; resolves to `{ menu }` when the answer holds it, else `undefined`. */
  publish<O extends RequestOptions = DefaultOptions>(
    id: number,
    options?: O,
  ): MainCall<O, 'POST /api/organizations/{id}/publish', MenuPublicationResult> {
    const core = this.#core;
    return core.invoke('POST /api/organizations/{id}/publish', { params: { path: { id } } }, options, {
      after: (answer) => (holdsRecord(answer, 'menu') ? answer : undefined),
    });
  }
}
