import type { DefaultOptions, MainCall, MainCore } from '../transport/core.js';
import type { MainBody, MainData, MainQuery } from '../transport/operations.js';
import type { RequestOptions } from '../transport/options.js';
import { readBack, type ReadBackOptions, type RecordResult } from './read-back.js';
import { toUploadForm, type UploadFileOptions, type UploadInput } from '../uploads/upload-file.js';

/** Filters of `GET /api/draft_dishes`. */
export type DraftDishFilters = MainQuery<'GET /api/draft_dishes'>;
/** The fields of a new draft dish (`POST /api/draft_dishes` without its root key). */
export type DraftDishCreateFields = MainBody<'POST /api/draft_dishes'>['draft_dish'];
/** The editable fields of a draft dish (`PUT /api/draft_dishes/{id}` without its root key). */
export type DraftDishUpdateFields = MainBody<'PUT /api/draft_dishes/{id}'>['draft_dish'];

/** What `update` and `uploadPhoto` resolve to for call options `O` on a client with read-back `R` (`{ draft_dish }`). */
export type DraftDishChange<R extends boolean, O> = RecordResult<MainData<'GET /api/draft_dishes/{id}'>, R, O>;

/**
 * Menu draft dishes; changes reach the storefront when the menu is published.
 * @example
 * const { draft_dish } = await api.draftDishes.create({ name: 'Tiramisu', price: '6.50', draft_category_id: 1001, organization_id: 1 });
 */
export class DraftDishesResource<R extends boolean = true> {
  readonly #core: MainCore;
  readonly #readBack: boolean;

  constructor(core: MainCore, readBack = true) {
    this.#core = core;
    this.#readBack = readBack;
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

  /**
   * Changes any field but id, organization_id and photo; resolves to the dish (read back with one GET when the
   * answer holds none, unless `readBack: false`).
   */
  update<O extends RequestOptions & ReadBackOptions = DefaultOptions>(
    id: number,
    fields: DraftDishUpdateFields,
    options?: O,
  ): MainCall<O, 'PUT /api/draft_dishes/{id}', DraftDishChange<R, O>> {
    const core = this.#core;
    return core.invoke(
      'PUT /api/draft_dishes/{id}',
      { params: { path: { id } }, body: { draft_dish: fields } },
      options,
      { after: readBack('draft_dish', this.#readBack, options, (o) => this.get(id, o)) },
    );
  }

  /** Deletes the dish (the storefront changes on publication); resolves to `undefined` whatever the answer holds. */
  delete<O extends RequestOptions = DefaultOptions>(
    id: number,
    options?: O,
  ): MainCall<O, 'DELETE /api/draft_dishes/{id}', undefined> {
    const core = this.#core;
    return core.invoke('DELETE /api/draft_dishes/{id}', { params: { path: { id } } }, options, {
      after: () => undefined,
    });
  }

  /**
   * Uploads the dish's photo (JPEG, PNG or WebP, at most 10 MiB) as multipart with the attribute `file`; resolves
   * to the dish like `update`.
   * @example
   * await api.draftDishes.uploadPhoto(10001, fs.createReadStream('margherita.jpg'));
   */
  uploadPhoto<O extends RequestOptions & UploadFileOptions & ReadBackOptions = DefaultOptions>(
    id: number,
    file: UploadInput,
    options?: O,
  ): MainCall<O, 'PUT /api/draft_dishes/{id}/photo', DraftDishChange<R, O>> {
    const core = this.#core;
    return core.invoke(
      'PUT /api/draft_dishes/{id}/photo',
      // The generated body type describes the part (`file: string`); the FormData is what goes on the wire
      // (openapi-fetch's body serialiser sends a FormData as it is).
      toUploadForm(file, options).then((form) => ({ params: { path: { id } }, body: form as never })),
      options,
      { after: readBack('draft_dish', this.#readBack, options, (o) => this.get(id, o)) },
    );
  }
}
