import type { components } from '@restoapi/openapi';
import { tooLarge, unprocessable } from '../engine/http-error.js';
import type { MockRuntime } from '../engine/runtime.js';
import type { PhotoRecord } from '../state/mock-state.js';

type S = components['schemas'];

/** The image types the uploads accept (decided: JPEG, PNG, WebP). */
export type PhotoType = 'image/jpeg' | 'image/png' | 'image/webp';

/** Sizes of a category photo, as `CategoryPhoto` lists them. */
export const CATEGORY_PHOTO_SIZES = ['original', 'small_square', 'medium_square', 'large'] as const;
/** Sizes of a dish photo, as `DishPhoto` lists them. */
export const DISH_PHOTO_SIZES = ['original', 'small_square', 'medium_square', 'medium', 'large'] as const;
/** Every size a photo URL may name. */
export const PHOTO_SIZES: readonly string[] = DISH_PHOTO_SIZES;

/** Path prefix the stored photos are served under (see `photo-route.ts`). */
export const PHOTO_PATH = '/__mock/photos';

/**
 * The image type from the file's first bytes. The declared Content-Type of a
 * part is whatever the client says, so only the content decides.
 */
export function sniffImageType(bytes: Uint8Array): PhotoType | undefined {
  const starts = (signature: number[], at = 0): boolean => signature.every((byte, i) => bytes[at + i] === byte);
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  // RIFF <size> WEBP
  if (bytes.length >= 12 && starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8))
    return 'image/webp';
  return undefined;
}

const DECLARED_ALIASES: Record<string, PhotoType> = {
  'image/jpeg': 'image/jpeg',
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/png': 'image/png',
  'image/webp': 'image/webp',
};

/** An accepted upload: the bytes and their real type. */
export interface PhotoUpload {
  bytes: Uint8Array;
  contentType: PhotoType;
}

/**
 * Reads the `file` part of a photo upload and checks it (decided limits):
 * larger than `maxPhotoBytes` is 413, a part that is not a JPEG, PNG or WebP
 * image by its content, or whose declared type contradicts the content, is 422
 * with pointer `/file`. The engine has already refused non-multipart bodies
 * (415) and unknown or missing parts (422).
 */
export async function readPhotoUpload(runtime: MockRuntime, form: FormData | undefined): Promise<PhotoUpload> {
  const part = form?.get('file');
  if (part === null || part === undefined || typeof part === 'string') {
    throw unprocessable([
      {
        pointer: '/file',
        code: 'invalid_type',
        detail: 'file must be a file part (multipart/form-data with a filename), not a text field.',
      },
    ]);
  }
  const limit = runtime.config.maxPhotoBytes;
  if (part.size > limit)
    throw tooLarge(`Photos may be at most ${formatBytes(limit)}; this one has ${formatBytes(part.size)}.`, {
      pointer: '/file',
    });
  const bytes = new Uint8Array(await part.arrayBuffer());
  const contentType = sniffImageType(bytes);
  if (!contentType) {
    throw unprocessable([
      {
        pointer: '/file',
        code: 'invalid_value',
        detail: 'file must be a JPEG, PNG or WebP image; its content is none of these.',
      },
    ]);
  }
  const declared = part.type ? part.type.split(';')[0]!.trim().toLowerCase() : '';
  // A generic or missing declared type says nothing; a specific one must agree with the content.
  if (declared && declared !== 'application/octet-stream' && DECLARED_ALIASES[declared] !== contentType) {
    throw unprocessable([
      {
        pointer: '/file',
        code: 'invalid_value',
        detail: `file is declared as ${declared} but its content is ${contentType}; only JPEG, PNG and WebP images are accepted.`,
      },
    ]);
  }
  return { bytes, contentType };
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  return `${bytes} bytes`;
}

/** Base64 of bytes, in chunks so large photos do not overflow the argument list. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Bytes from base64. */
export function fromBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The URL of one size of a stored photo (every size serves the original bytes). */
export function photoUrl(runtime: MockRuntime, photoId: number, size: string): string {
  return `${runtime.baseUrl.replace(/\/+$/, '')}${PHOTO_PATH}/${photoId}/${size}`;
}

/** The id of a stored photo named by a photo object's URL, if it is one of ours. */
export function photoIdOf(url: string | undefined): number | undefined {
  const match = url ? /\/__mock\/photos\/(\d+)\/[a-z_]+$/.exec(url) : null;
  return match ? Number(match[1]) : undefined;
}

/** Stores an upload; returns the photo record. */
export function storePhoto(
  runtime: MockRuntime,
  owner: PhotoRecord['owner'],
  ownerId: number,
  upload: PhotoUpload,
): PhotoRecord {
  return runtime.state.photos.insert({
    content_type: upload.contentType,
    data: toBase64(upload.bytes),
    owner,
    owner_id: ownerId,
  });
}

/** The `photo` object of a category for a stored photo. */
export function categoryPhoto(runtime: MockRuntime, photoId: number): S['CategoryPhoto'] {
  return Object.fromEntries(
    CATEGORY_PHOTO_SIZES.map((size) => [size, photoUrl(runtime, photoId, size)]),
  ) as S['CategoryPhoto'];
}

/** The `photo` object of a dish for a stored photo. */
export function dishPhoto(runtime: MockRuntime, photoId: number): S['DishPhoto'] {
  return Object.fromEntries(DISH_PHOTO_SIZES.map((size) => [size, photoUrl(runtime, photoId, size)])) as S['DishPhoto'];
}

/**
 * Drops the stored photo behind a draft's old `photo` object, unless a
 * published menu still shows it: the storefront keeps the old photo until the
 * next publication, so its bytes must stay servable until then.
 */
export function releasePhoto(runtime: MockRuntime, photo: { original: string } | null | undefined): void {
  const id = photoIdOf(photo?.original);
  if (id === undefined) return;
  const marker = `${PHOTO_PATH}/${id}/`;
  const published = runtime.state.publishedMenus
    .all()
    .some((menu) => [...menu.categories, ...menu.dishes].some((record) => record.photo?.original.includes(marker)));
  if (!published) runtime.state.photos.delete(id);
}

/**
 * Deletes stored photos no draft and no published menu shows any more (called
 * on publication, when the storefront lets go of replaced photos).
 */
export function collectUnusedPhotos(runtime: MockRuntime): void {
  const { state } = runtime;
  const used = new Set<number>();
  const note = (photo: { original: string } | null | undefined): void => {
    const id = photoIdOf(photo?.original);
    if (id !== undefined) used.add(id);
  };
  for (const category of state.draftCategories.all()) note(category.photo);
  for (const dish of state.draftDishes.all()) note(dish.photo);
  for (const menu of state.publishedMenus.all())
    for (const record of [...menu.categories, ...menu.dishes]) note(record.photo);
  for (const photo of state.photos.all()) if (!used.has(photo.id)) state.photos.delete(photo.id);
}
