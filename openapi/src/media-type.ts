/** The last `Content-Type` read and its media type (see {@link mediaTypeOf}). */
let last = { contentType: '', mediaType: '' };

/**
 * The media type of a `Content-Type` value, lower-cased and without parameters (`Application/JSON; charset=utf-8`
 * → `application/json`); `undefined` without a header, `''` when the value names no type before its parameters.
 */
export function mediaTypeOf(contentType: string | null | undefined): string | undefined {
  if (!contentType) return undefined;
  // Every request of a client sends the same header: the last one read is answered without splitting it again.
  if (contentType === last.contentType) return last.mediaType;
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  last = { contentType, mediaType };
  return mediaType;
}
