import { TextDecoder } from 'node:util';
import type sniffer from 'html-encoding-sniffer';
import { lazyCjs } from '../cjs.js';

const sniffHTMLEncoding = lazyCjs<typeof sniffer>('html-encoding-sniffer');

/** Media types read as text; anything else is binary (images, PDFs, archives, fonts, …). */
const TEXT_TYPES = new Set([
  'application/xhtml+xml',
  'application/xml',
  'application/json',
  'application/ld+json',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/rss+xml',
  'application/atom+xml',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-sh',
  'application/graphql',
  'application/sql',
  'image/svg+xml',
]);

export function isHtml(mediaType: string | undefined): boolean {
  return mediaType === 'text/html' || mediaType === 'application/xhtml+xml';
}

/** True for `text/*`, `*+json`, `*+xml` and the listed textual `application/*` types. */
export function isTextual(mediaType: string): boolean {
  return (
    mediaType.startsWith('text/') ||
    TEXT_TYPES.has(mediaType) ||
    /^application\/[\w.-]+\+(json|xml)$/.test(mediaType)
  );
}

/** A NUL byte in the first KiB means binary, unless a UTF-16 byte order mark explains it. */
export function looksBinary(body: Uint8Array): boolean {
  if (
    body.length >= 2 &&
    ((body[0] === 0xff && body[1] === 0xfe) || (body[0] === 0xfe && body[1] === 0xff))
  ) {
    return false;
  }
  return body.subarray(0, 1024).includes(0);
}

function decoder(label: string, fatal = false): TextDecoder | undefined {
  try {
    return new TextDecoder(label, { fatal });
  } catch {
    return undefined; // a label this Node's ICU does not know
  }
}

const UNDECLARED = 'x-undeclared';

/**
 * Bytes to text the way a browser would: a BOM, then the `Content-Type` charset, then (HTML) a
 * `<meta charset>` in the first KiB. With none of them, UTF-8 when the bytes are valid UTF-8,
 * else windows-1252 (what browsers assume for undeclared legacy pages).
 */
export function decodeText(
  body: Uint8Array,
  mediaType: string | undefined,
  charset: string | undefined,
): { text: string; encoding: string } {
  const label = charset?.trim();
  const options = {
    xml: !isHtml(mediaType), // BOM and header only: no <meta> prescan outside HTML
    ...(label && { transportLayerEncodingLabel: label }),
    defaultEncoding: UNDECLARED,
  };
  const sniffed = sniffHTMLEncoding()(body, options as sniffer.Options);
  const named = sniffed === UNDECLARED ? undefined : decoder(sniffed);
  if (named) return { text: named.decode(body), encoding: named.encoding };
  try {
    return { text: (decoder('utf-8', true) as TextDecoder).decode(body), encoding: 'utf-8' };
  } catch {
    return { text: (decoder('windows-1252') as TextDecoder).decode(body), encoding: 'windows-1252' };
  }
}
