import type { MockRuntime } from '../engine/runtime.js';
import { sniffImageType, storePhoto } from '../menu/photos.js';

/** The part of a menu import body that names remote photos. */
interface WithRemotePhotos {
  categories?: { remote_photo_url?: string | null }[];
  dishes: { remote_photo_url?: string | null }[];
}

/** How long one remote photo may take; an unreachable host must not hold the import for long. */
const FETCH_TIMEOUT_MS = 3_000;

/** The distinct `remote_photo_url`s of a menu import, categories first. */
export function remotePhotoUrls(body: WithRemotePhotos): string[] {
  const urls = [
    ...(body.categories ?? []).map((c) => c.remote_photo_url),
    ...body.dishes.map((d) => d.remote_photo_url),
  ];
  return [...new Set(urls.filter((url): url is string => typeof url === 'string' && url.length > 0))];
}

/**
 * Fetches the import's remote photos when they are reachable ("fetched when reachable and
 * recorded either way"): each JPEG, PNG or WebP answer within the size limit is stored as a
 * photo; anything else is skipped, and the URL stays recorded on the draft. Returns URL → photo id.
 */
export async function fetchRemotePhotos(
  runtime: MockRuntime,
  body: WithRemotePhotos,
  fetchImpl: typeof fetch = globalThis.fetch,
): Promise<Record<string, number>> {
  const fetched: Record<string, number> = {};
  await Promise.all(
    remotePhotoUrls(body).map(async (url) => {
      try {
        const response = await fetchImpl(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
        if (!response.ok) return;
        const bytes = new Uint8Array(await response.arrayBuffer());
        const type = sniffImageType(bytes);
        if (!type || bytes.byteLength > runtime.config.maxPhotoBytes) return;
        // The owner is set when the import applies and a draft takes the photo.
        fetched[url] = storePhoto(runtime, 'draft_dish', 0, { contentType: type, bytes }).id;
      } catch {
        // Unreachable, refused or too slow: recorded, not fetched.
      }
    }),
  );
  return fetched;
}
