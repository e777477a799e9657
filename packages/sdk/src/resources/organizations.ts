import type { DefaultOptions, MainCall, MainCore } from '../transport/core.js';
import type { MainBody } from '../transport/operations.js';
import type { RequestOptions } from '../transport/options.js';

/** The editable fields of an organization (`PUT /api/organizations/{id}` without its root key). */
export type OrganizationUpdateFields = MainBody<'PUT /api/organizations/{id}'>['organization'];

/**
 * Organizations: the caller's organizations, their settings, and menu publication.
 * @example
 * const { organizations } = await api.organizations.list();
 */
export class OrganizationsResource {
  readonly #core: MainCore;

  constructor(core: MainCore) {
    this.#core = core;
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

  /** Changes name, social_network, about or phone; answers the updated organization. */
  update<O extends RequestOptions = DefaultOptions>(
    id: number,
    fields: OrganizationUpdateFields,
    options?: O,
  ): MainCall<O, 'PUT /api/organizations/{id}'> {
    const core = this.#core;
    return core.invoke(
      'PUT /api/organizations/{id}',
      { params: { path: { id } }, body: { organization: fields } },
      options,
    );
  }

  /** Publishes the menu drafts to the storefront. */
  publish<O extends RequestOptions = DefaultOptions>(
    id: number,
    options?: O,
  ): MainCall<O, 'POST /api/organizations/{id}/publish'> {
    const core = this.#core;
    return core.invoke('POST /api/organizations/{id}/publish', { params: { path: { id } } }, options);
  }
}
