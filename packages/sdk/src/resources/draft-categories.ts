import type { DefaultOptions, MainCall, MainCore } from '../transport/core.js';
import type { MainBody, MainData, MainQuery } from '../transport/operations.js';
import type { RequestOptions } from '../transport/options.js';
import { readBack, type ReadBackOptions, type RecordResult } from './read-back.js';
import { toUploadForm, type UploadFileOptions, type UploadInput } from '../uploads/upload-file.js';

/** Filters of `GET /api/draft_categories`. */
export type DraftCategoryFilters = MainQuery<'GET /api/draft_categories'>;
/** The fields of a new draft category (`POST /api/draft_categories` without its root key). */
export type DraftCategoryCreateFields = MainBody<'POST /api/draft_categories'>['draft_category'];
/** The editable fields of a draft category (`PUT /api/draft_categories/{id}` without its root key). */
export type DraftCategoryUpdateFields = MainBody<'PUT /api/draft_categories/{id}'>['draft_category'];

/** What `update` and `uploadPhoto` resolve to for call options `O` on a client with read-back `R` (`{ draft_category }`). */
export type DraftCategoryChange<R extends boolean, O> = RecordResult<MainData<'GET /api/draft_categories/{id}'>, R, O>;

/**
 * Menu draft categories; changes reach the storefront when the menu is published.
 * @example
 * const { draft_category } = await api.draftCategories.create({ name: 'Desserts', organization_id: 1 });
 */
export class DraftCategoriesResource<R extends boolean = true> {
  readonly #core: MainCore;
  readonly #readBack: boolean;

  constructor(core: MainCore, readBack = true) {
    this.#core = core;
    this.#readBack = readBack;
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

  /**
   * Changes name or menu_order; resolves to the category (read back with one GET when the answer holds none,
   * unless `readBack: false`).
   */
  update<O extends RequestOptions & ReadBackOptions = DefaultOptions>(
    id: number,
    fields: DraftCategoryUpdateFields,
    options?: O,
  ): MainCall<O, 'PUT /api/draft_categories/{id}', DraftCategoryChange<R, O>> {
    const core = this.#core;
    return core.invoke(
      'PUT /api/draft_categories/{id}',
      { params: { path: { id } }, body: { draft_category: fields } },
      options,
      { after: readBack('draft_category', this.#readBack, options, (o) => this.get(id, o)) },
    );
  }

  /**
   * Deletes the category and every dish in it (the storefront changes on publication); resolves to `undefined`
   * whatever the answer holds.
   */
  delete<O extends RequestOptions = DefaultOptions>(
    id: number,
    options?: O,
  ): MainCall<O, 'DELETE /api/draft_categories/{id}', undefined> {
    const core = this.#core;
    return core.invoke('DELETE /api/draft_categories/{id}', { params: { path: { id } } }, options, {
      after: () => undefined,
    });
  }

  /**
   * Uploads the category's photo (JPEG, PNG or WebP, at most 10 MiB) as multipart with the attribute `file`;
   * resolves to the category like `update`.
   * @example
   * await api.draftCategories.uploadPhoto(1001, new Blob([bytes], { type: 'image/jpeg' }));
   */
  uploadPhoto<O extends RequestOptions & UploadFileOptions & ReadBackOptions = DefaultOptions>(
    id: number,
    file: UploadInput,
    options?: O,
  ): MainCall<O, 'PUT /api/draft_categories/{id}/photo', DraftCategoryChange<R, O>> {
    const core = this.#core;
    return core.invoke(
      'PUT /api/draft_categories/{id}/photo',
      // The generated body type describes the part (`file: string`); the FormData is what goes on the wire
      // (openapi-fetch's body serialiser sends a FormData as it is).
      toUploadForm(file, options).then((form) => ({ params: { path: { id } }, body: form as never })),
      options,
      { after: readBack('draft_category', this.#readBack, options, (o) => this.get(id, o)) },
    );
  }
}
