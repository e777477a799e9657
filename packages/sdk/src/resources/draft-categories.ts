import type { DefaultOptions, MainCall, MainCore } from '../transport/core.js';
import type { MainBody, MainQuery } from '../transport/operations.js';
import type { RequestOptions } from '../transport/options.js';
import { toUploadForm, type UploadFileOptions, type UploadInput } from '../uploads/upload-file.js';

/** Filters of `GET /api/draft_categories`. */
export type DraftCategoryFilters = MainQuery<'GET /api/draft_categories'>;
/** The fields of a new draft category (`POST /api/draft_categories` without its root key). */
export type DraftCategoryCreateFields = MainBody<'POST /api/draft_categories'>['draft_category'];
/** The editable fields of a draft category (`PUT /api/draft_categories/{id}` without its root key). */
export type DraftCategoryUpdateFields = MainBody<'PUT /api/draft_categories/{id}'>['draft_category'];

/**
 * Menu draft categories; changes reach the storefront when the menu is published.
 * @example
 * const { draft_category } = await api.draftCategories.create({ name: 'Desserts', organization_id: 1 });
 */
export class DraftCategoriesResource {
  readonly #core: MainCore;

  constructor(core: MainCore) {
    this.#core = core;
  }

  /** Lists the draft categories the caller can access (storefront order), optionally of one organization. */
  list<O extends RequestOptions = DefaultOptions>(
    filters?: DraftCategoryFilters,
    options?: O,
  ): MainCall<O, 'GET /api/draft_categories'> {
    const core = this.#core;
    return core.invoke('GET /api/draft_categories', { params: { query: filters } }, options);
  }

  /** Reads one draft category. */
  get<O extends RequestOptions = DefaultOptions>(
    id: number,
    options?: O,
  ): MainCall<O, 'GET /api/draft_categories/{id}'> {
    const core = this.#core;
    return core.invoke('GET /api/draft_categories/{id}', { params: { path: { id } } }, options);
  }

  /** Creates a draft category (answers 201 with it). */
  create<O extends RequestOptions = DefaultOptions>(
    fields: DraftCategoryCreateFields,
    options?: O,
  ): MainCall<O, 'POST /api/draft_categories'> {
    const core = this.#core;
    return core.invoke('POST /api/draft_categories', { body: { draft_category: fields } }, options);
  }

  /** Changes name or menu_order. */
  update<O extends RequestOptions = DefaultOptions>(
    id: number,
    fields: DraftCategoryUpdateFields,
    options?: O,
  ): MainCall<O, 'PUT /api/draft_categories/{id}'> {
    const core = this.#core;
    return core.invoke(
      'PUT /api/draft_categories/{id}',
      { params: { path: { id } }, body: { draft_category: fields } },
      options,
    );
  }

  /** Deletes the category and every dish in it (the storefront changes on publication). */
  delete<O extends RequestOptions = DefaultOptions>(
    id: number,
    options?: O,
  ): MainCall<O, 'DELETE /api/draft_categories/{id}'> {
    const core = this.#core;
    return core.invoke('DELETE /api/draft_categories/{id}', { params: { path: { id } } }, options);
  }

  /**
   * Uploads the category's photo (JPEG, PNG or WebP, at most 10 MiB) as multipart with the attribute `file`.
   * @example
   * await api.draftCategories.uploadPhoto(1001, new Blob([bytes], { type: 'image/jpeg' }));
   */
  uploadPhoto<O extends RequestOptions & UploadFileOptions = DefaultOptions>(
    id: number,
    file: UploadInput,
    options?: O,
  ): MainCall<O, 'PUT /api/draft_categories/{id}/photo'> {
    const core = this.#core;
    return core.invoke(
      'PUT /api/draft_categories/{id}/photo',
      // The generated body type describes the part (`file: string`); the FormData is what goes on the wire
      // (openapi-fetch's body serialiser sends a FormData as it is).
      toUploadForm(file, options).then((form) => ({ params: { path: { id } }, body: form as never })),
      options,
    );
  }
}
