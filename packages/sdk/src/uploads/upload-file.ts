/**
 * What a photo upload accepts: a `Blob`/`File`, bytes (`Uint8Array`, Node's `Buffer`, `ArrayBuffer`),
 * a web `ReadableStream`, or any async iterable of chunks such as a Node `Readable` (`fs.createReadStream`).
 */
export type UploadInput =
  Blob | ArrayBuffer | ArrayBufferView | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>;

/** Options of an upload. */
export interface UploadFileOptions {
  /** File name sent with the part (default: the `File`'s name, else `photo.<ext>`). */
  filename?: string;
  /** Media type of the part (default: the `Blob`'s type, else sniffed from the first bytes: JPEG, PNG or WebP). */
  contentType?: string;
}

const EXTENSIONS: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' };

/** The image type of the first bytes (JPEG, PNG or WebP), if any. */
export function sniffImageType(bytes: Uint8Array): string | undefined {
  const at = (signature: number[], offset = 0): boolean => signature.every((byte, i) => bytes[offset + i] === byte);
  if (at([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (at([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (bytes.length >= 12 && at([0x52, 0x49, 0x46, 0x46]) && at([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array | string> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown })?.[Symbol.asyncIterator] === 'function';
}

async function collect(input: UploadInput): Promise<Blob> {
  if (input instanceof Blob) return input;
  // Blob accepts every ArrayBuffer(View); the cast only bridges lib.dom's narrower BlobPart typing.
  if (input instanceof ArrayBuffer || ArrayBuffer.isView(input)) return new Blob([input as BlobPart]);
  if (typeof ReadableStream !== 'undefined' && input instanceof ReadableStream) return new Response(input).blob();
  if (isAsyncIterable(input)) {
    const chunks: BlobPart[] = [];
    for await (const chunk of input) chunks.push(chunk as BlobPart);
    return new Blob(chunks);
  }
  throw new TypeError(
    'Upload input must be a Blob, File, ArrayBuffer, typed array, ReadableStream or async iterable of chunks.',
  );
}

/**
 * Turns any {@link UploadInput} into the `multipart/form-data` body of a photo upload, with the attribute `file`.
 * @example
 * const form = await toUploadForm(fs.createReadStream('margherita.jpg'));
 */
export async function toUploadForm(input: UploadInput, options: UploadFileOptions = {}): Promise<FormData> {
  const blob = await collect(input);
  let type = options.contentType ?? blob.type;
  if (!type) type = sniffImageType(new Uint8Array(await blob.slice(0, 12).arrayBuffer())) ?? 'application/octet-stream';
  const name =
    options.filename ??
    (typeof File !== 'undefined' && blob instanceof File && blob.name
      ? blob.name
      : `photo.${EXTENSIONS[type] ?? 'bin'}`);
  const form = new FormData();
  form.append('file', blob.type === type ? blob : new Blob([blob], { type }), name);
  return form;
}
