import type { EngineRoute, MockEngine } from '../engine/engine.js';
import { errorObject } from '../engine/http-error.js';
import { PHOTO_PATH, PHOTO_SIZES, fromBase64 } from './photos.js';

const PATTERN = new RegExp(`^${PHOTO_PATH}/(\\d+)/([a-z_]+)$`);

function errorResponse(
  status: number,
  code: string,
  title: string,
  detail: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ errors: [errorObject(status, code, title, detail)] }), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  });
}

/**
 * Serves uploaded photos at the URLs of the `photo` objects
 * (`/__mock/photos/{photoId}/{size}`), with the stored Content-Type. The mock
 * keeps only the original, so every size answers with the original bytes.
 * Public, like a CDN: the storefront shows these without a session.
 */
export const photoRoute: EngineRoute = Object.assign(
  (request: Request, url: URL, engine: MockEngine): Response | undefined => {
    const match = PATTERN.exec(url.pathname);
    if (!match) return undefined;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return errorResponse(
        405,
        'method_not_allowed',
        'Method not allowed',
        `${request.method} is not served at ${url.pathname}; use GET.`,
        { Allow: 'GET, HEAD' },
      );
    }
    const photo = engine.runtime.state.photos.get(Number(match[1]));
    if (!photo || !PHOTO_SIZES.includes(match[2]!)) {
      return errorResponse(404, 'not_found', 'Not found', `No photo at ${url.pathname}.`);
    }
    const bytes = fromBase64(photo.data);
    return new Response(request.method === 'HEAD' ? null : (bytes as BodyInit), {
      status: 200,
      headers: { 'Content-Type': photo.content_type, 'Content-Length': String(bytes.byteLength) },
    });
    // The engine tries it only under the photo path, so API requests never build a fetch Request for it.
  },
  { pathPrefix: `${PHOTO_PATH}/` },
);
