import type { DefaultOptions, MainCall, MainCore } from '../transport/core.js';
import type { MainBody, MainQuery } from '../transport/operations.js';
import type { RequestOptions } from '../transport/options.js';
import { toUploadForm, type UploadFileOptions, type UploadInput } from '../uploads/upload-file.js';

/** Filters of `GET /api/draft_dishes`. */
export type DraftDishFilters = MainQuery<'GET /api/draft_dishes'>;
/** The fields of a new draft dish (`POST /api/draft_dishes` without its root key). */
export type DraftDishCreateFields = MainBody<'POST /api/draft_dishes'>['draft_dish'];
/** The editable fields of a draft dish (`PUT /api/draft_dishes/{id}` without its root key). */
export type DraftDishUpdateFields = MainBody<'PUT /api/draft_dishes/{id}'>['draft_dish'];

/**
 * Menu draft dishes; changes reach the storefront when the menu is published.
 * @example
 * const { draft_dish } = await api.draftDishes.create({ name: 'Tiramisu', price: '6.50', draft_category_id: 1001, organization_id: 1 });
 */
export class DraftDishesResource {
  readonly #core: MainCore;

  constructor(core: MainCore) {
    this.#core = core;
  }

  /** Lists the draft dishes the caller can access (storefront order), optionally of one organization or category. */
  list<O extends RequestOptions = DefaultOptions>(
    filters?: DraftDishFilters,
    options?: O,
  ): MainCall<O, 'GET /api/draft_dishes'> {
    const core = this.#core;
    return core.invoke('GET /api/draft_dishes', { params: { query: filters } }, options);
  }

  /** Reads one draft dish. */
  get<O extends RequestOptions = DefaultOptions>(id: number, options?: O): MainCall<O, 'GET /api/draft_dishes/{id}'> {
    const core = this.#core;
    return core.invoke('GET /api/draft_dishes/{id}', { params: { path: { id } } }, options);
  }

  /** Creates a draft dish (name, price, draft_category_id and organization_id are required; answers 201). */
  create<O extends RequestOptions = DefaultOptions>(
    fields: DraftDishCreateFields,
    options?: O,
  ): MainCall<O, 'POST /api/draft_dishes'> {
    const core = this.#core;
    return core.invoke('POST /api/draft_dishes', { body: { draft_dish: fields } }, options);
  }

  /** Changes any field but id, organization_id and photo. */
  update<O extends RequestOptions = DefaultOptions>(
    id: number,
    fields: DraftDishUpdateFields,
    options?: O,
  ): MainCall<O, 'PUT /api/draft_dishes/{id}'> {
    const core = this.#core;
    return core.invoke(
      'PUT /api/draft_dishes/{id}',
      { params: { path: { id } }, body: { draft_dish: fields } },
      options,
    );
  }

  /** Deletes the dish (the storefront changes on publication). */
  delete<O extends RequestOptions = DefaultOptions>(
    id: number,
    options?: O,
  ): MainCall<O, 'DELETE /api/draft_dishes/{id}'> {
    const core = this.#core;
    return core.invoke('DELETE /api/draft_dishes/{id}', { params: { path: { id } } }, options);
  }

  /**
   * Uploads the dish's photo (JPEG, PNG or WebP, at most 10 MiB) as multipart with the attribute `file`.
   * @example
   * await api.draftDishes.uploadPhoto(10001, fs.createReadStream('margherita.jpg'));
   */
  uploadPhoto<O extends RequestOptions & UploadFileOptions = DefaultOptions>(
    id: number,
    file: UploadInput,
    options?: O,
  ): MainCall<O, 'PUT /api/draft_dishes/{id}/photo'> {
    const core = this.#core;
    return core.invoke(
      'PUT /api/draft_dishes/{id}/photo',
      // The generated body type describes the part (`file: string`); the FormData is what goes on the wire
      // (openapi-fetch's body serialiser sends a FormData as it is).
      toUploadForm(file, options).then((form) => ({ params: { path: { id } }, body: form as never })),
      options,
    );
  }
}
