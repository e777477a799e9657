/**
 * The media type of a `Content-Type` value, lower-cased and without parameters (`Application/JSON; charset=utf-8`
 * → `application/json`); `undefined` without a header, `''` when the value names no type before its parameters.
 */
export function mediaTypeOf(contentType: string | null | undefined): string | undefined {
  return contentType ? contentType.split(';')[0]!.trim().toLowerCase() : undefined;
}
