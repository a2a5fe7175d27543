import type { Xattr } from '@brickpost/manifest';

/**
 * How an object's metadata travels in a shipment: as extended attributes
 * in the `user.s3.` namespace of its file record (FORMAT.md §9, field `x`),
 * so a folder destination keeps them as ordinary user xattrs and an object
 * storage destination sets them again:
 *
 * - `user.s3.etag`: the source object's ETag, quotes included (a record of
 *   what was read; a destination computes its own);
 * - `user.s3.content-type`: its Content-Type;
 * - `user.s3.meta.NAME`: each user metadata entry (`x-amz-meta-NAME`),
 *   NAME in lower case as S3 keeps it, its value as UTF-8 text (written
 *   back RFC 2047-encoded when it is not US-ASCII, as AWS returns it).
 *
 * Size and Last-Modified are the record's size and mtime. A file packed
 * from a folder carries whatever `user.s3.*` attributes it has, so metadata
 * also survives a trip through a folder.
 */
export const ETAG = 'user.s3.etag';
export const CONTENT_TYPE = 'user.s3.content-type';
export const META = 'user.s3.meta.';

/** The attributes of an object's metadata, names ascending by bytes. */
export function metadataAttrs(m: { etag?: string | undefined; contentType?: string | undefined; metadata: Record<string, string> }): Xattr[] {
  const x: Xattr[] = [];
  if (m.etag) x.push([ETAG, b64(m.etag)]);
  if (m.contentType) x.push([CONTENT_TYPE, b64(m.contentType)]);
  for (const [k, v] of Object.entries(m.metadata)) x.push([META + k.toLowerCase(), b64(headerText(v))]);
  return x.sort((a, b) => Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])));
}

/** What an object storage destination sets from a record's attributes; the others are not applied. */
export function objectMetadata(x: readonly Xattr[] | undefined): { contentType?: string; metadata: Record<string, string>; ignored: number } {
  const out: { contentType?: string; metadata: Record<string, string>; ignored: number } = { metadata: {}, ignored: 0 };
  for (const [name, value] of x ?? []) {
    const v = Buffer.from(value, 'base64').toString('utf8');
    if (name === CONTENT_TYPE) out.contentType = v;
    else if (name.startsWith(META) && name.length > META.length) out.metadata[name.slice(META.length)] = headerValue(v);
    else if (name !== ETAG) out.ignored++;
  }
  return out;
}

/**
 * The text of a metadata value as a header carries it: RFC 2047 encoded
 * words (`=?UTF-8?B?…?=`, as AWS returns values that are not US-ASCII)
 * decoded, and raw UTF-8 bytes (which Node reads as Latin-1) read as UTF-8.
 */
export function headerText(v: string): string {
  const word = /^=\?UTF-8\?([BQ])\?([^?]*)\?=$/i.exec(v.trim());
  if (word) {
    const data =
      word[1]!.toUpperCase() === 'B'
        ? Buffer.from(word[2]!, 'base64')
        : Buffer.from(
            word[2]!.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
            'latin1',
          );
    return data.toString('utf8');
  }
  if (/^[\x00-\xff]*$/.test(v) && /[\x80-\xff]/.test(v)) {
    const bytes = Buffer.from(v, 'latin1');
    const text = bytes.toString('utf8');
    if (Buffer.from(text, 'utf8').equals(bytes)) return text;
  }
  return v;
}

/** A metadata value as a header can carry it: US-ASCII as it is, anything else as one RFC 2047 encoded word. */
export function headerValue(v: string): string {
  return /^[\x20-\x7e]*$/.test(v) ? v : `=?UTF-8?B?${Buffer.from(v, 'utf8').toString('base64')}?=`;
}

function b64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64');
}
