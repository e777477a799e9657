import type { MockRuntime } from '../engine/runtime.js';
import { sniffImageType, storePhoto, type PhotoType } from '../menu/photos.js';
import { OutboundRefused, urlProblem } from '../net/outbound-policy.js';

/** The part of a menu import body that names remote photos. */
interface WithRemotePhotos {
  categories?: { remote_photo_url?: string | null }[];
  dishes: { remote_photo_url?: string | null }[];
}

/** How long one remote photo may take, redirects and body included; an unreachable host must not hold the import. */
const FETCH_TIMEOUT_MS = 3_000;
/** How long all the photos of one import may take together: the import answers after them. */
const IMPORT_BUDGET_MS = 10_000;
/** Redirects followed per photo, each hop checked like the first. */
const MAX_REDIRECTS = 3;
/** The option that changes the rule, named in refusals. */
const FLAG = '--remote-photos';

/** The distinct `remote_photo_url`s of a menu import, categories first. */
export function remotePhotoUrls(body: WithRemotePhotos): string[] {
  const urls = [
    ...(body.categories ?? []).map((c) => c.remote_photo_url),
    ...body.dishes.map((d) => d.remote_photo_url),
  ];
  return [...new Set(urls.filter((url): url is string => typeof url === 'string' && url.length > 0))];
}

/** What became of the import's remote photos: URL → photo id for the fetched ones, URL → reason for the others. */
export interface RemotePhotoResults {
  fetched: Record<string, number>;
  refused: Record<string, string>;
}

/** A photo the size limit or the type refuses, with the reason recorded on the import. */
class PhotoRefused extends Error {}

/**
 * Reads a body up to `limit` bytes and stops there: a photo larger than the limit is refused as soon as the
 * limit is passed, without reading (or holding) the rest.
 */
async function readLimited(response: Response, limit: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    void response.body?.cancel().catch(() => undefined);
    throw new PhotoRefused(`larger than maxPhotoBytes (${limit} bytes): ${declared} bytes declared`);
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) throw new PhotoRefused(`larger than maxPhotoBytes (${limit} bytes); the download was stopped`);
      chunks.push(value);
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** One photo: redirects followed by hand, every hop checked by the rule and by the outbound fetch's own check. */
async function fetchPhoto(
  runtime: MockRuntime,
  first: string,
  signal: AbortSignal,
): Promise<{ bytes: Uint8Array; type: PhotoType }> {
  const { rule, fetch } = runtime.outbound.photos;
  let url = first;
  for (let hop = 0; ; hop++) {
    const problem = urlProblem(url, rule, FLAG);
    if (problem) throw new OutboundRefused(hop === 0 ? problem : `redirected to ${url}: ${problem}`);
    const response = await fetch(url, { redirect: 'manual', signal });
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      void response.body?.cancel().catch(() => undefined);
      if (hop >= MAX_REDIRECTS) throw new PhotoRefused(`more than ${MAX_REDIRECTS} redirects`);
      url = new URL(location, url).href;
      continue;
    }
    // A browser hides where a redirect goes (`opaqueredirect`), so it cannot be checked: not followed.
    if (response.type === 'opaqueredirect') throw new PhotoRefused('a redirect the mock cannot check');
    if (!response.ok) {
      void response.body?.cancel().catch(() => undefined);
      throw new PhotoRefused(`answered ${response.status}`);
    }
    const bytes = await readLimited(response, runtime.config.maxPhotoBytes);
    const type = sniffImageType(bytes);
    if (!type) throw new PhotoRefused('not a JPEG, PNG or WebP image');
    return { bytes, type };
  }
}

/** Why a fetch failed, in a line: the mock's own refusals as they are, a timeout or a network error named. */
function reasonOf(error: unknown): string {
  if (error instanceof OutboundRefused || error instanceof PhotoRefused) return error.message;
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return `unreachable (${cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error)})`;
}

/**
 * Fetches the import's remote photos when they are reachable and allowed ("fetched when reachable and recorded
 * either way"): at most `remotePhotoConcurrency` at a time and `maxRemotePhotos` in all, each within
 * `maxPhotoBytes` (the download stops there), under the operator's outbound rule (`--remote-photos`). Each JPEG,
 * PNG or WebP answer is stored as a photo; for every other URL the reason is kept, and the URL stays recorded on
 * the draft.
 */
export async function fetchRemotePhotos(runtime: MockRuntime, body: WithRemotePhotos): Promise<RemotePhotoResults> {
  const results: RemotePhotoResults = { fetched: {}, refused: {} };
  const urls = remotePhotoUrls(body);
  const { maxRemotePhotos, remotePhotoConcurrency } = runtime.config;
  const budget = AbortSignal.timeout(IMPORT_BUDGET_MS);
  for (const url of urls.slice(maxRemotePhotos))
    results.refused[url] = `not fetched: an import fetches at most maxRemotePhotos (${maxRemotePhotos}) photos`;
  const queue = urls.slice(0, maxRemotePhotos);
  // A few workers taking the next URL in turn: never more than remotePhotoConcurrency downloads at once.
  const worker = async (): Promise<void> => {
    for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
      if (budget.aborted) {
        results.refused[url] = `not fetched: the import's photos took more than ${IMPORT_BUDGET_MS} ms`;
        continue;
      }
      const signal = AbortSignal.any([AbortSignal.timeout(FETCH_TIMEOUT_MS), budget]);
      try {
        const { bytes, type } = await fetchPhoto(runtime, url, signal);
        // The owner is set when the import applies and a draft takes the photo.
        results.fetched[url] = storePhoto(runtime, 'draft_dish', 0, { contentType: type, bytes }).id;
      } catch (error) {
        // An abort surfaces as whatever the stream says ("aborted"); the signal knows it was the time limit.
        results.refused[url] = budget.aborted
          ? `not complete when the import's photos had taken ${IMPORT_BUDGET_MS} ms`
          : signal.aborted
            ? `no complete answer within ${FETCH_TIMEOUT_MS} ms`
            : reasonOf(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(remotePhotoConcurrency, queue.length)) }, worker));
  return results;
}
