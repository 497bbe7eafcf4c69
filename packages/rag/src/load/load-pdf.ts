import { inflateSync, constants as zlib } from 'node:zlib';
import { ConfigError } from '@raf/core';
import type { LoadedDocument } from './document.js';
import { DocumentBudgetError, type DocumentLimits } from './document-limits.js';

type PdfProxy = { numPages: number; destroy(): Promise<void> };
type Unpdf = {
  getDocumentProxy(data: Uint8Array): Promise<PdfProxy>;
  extractText(pdf: PdfProxy, options: { mergePages: false }): Promise<{ text: string[] }>;
  getMeta?(pdf: PdfProxy): Promise<{ info?: Record<string, unknown> }>;
};

const STREAM = Buffer.from('stream');
const END_STREAM = Buffer.from('endstream');

/**
 * What the PDF's zlib streams inflate to, summed, stopping as soon as the budget is passed (each
 * stream is inflated with `maxOutputLength`, so a bomb costs at most the budget, never its size).
 * Image streams are left out (text extraction never decodes them); a stream that is not zlib
 * data is not counted (the page and time budgets still hold for it).
 */
export function checkInflatedSize(bytes: Uint8Array, budget: number): void {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let total = 0;
  for (let at = data.indexOf(STREAM); at >= 0; at = data.indexOf(STREAM, at + STREAM.length)) {
    if (data[at - 1] === 0x64 /* d: the "endstream" keyword */) continue;
    let start = at + STREAM.length;
    if (data[start] === 0x0d) start++;
    if (data[start] !== 0x0a) continue;
    start++;
    const dictionary = data.subarray(Math.max(0, at - 2048), at).toString('latin1');
    if (/\/Subtype\s*\/Image/.test(dictionary.slice(dictionary.lastIndexOf('obj')))) continue;
    const end = data.indexOf(END_STREAM, start);
    const stream = data.subarray(start, end < 0 ? data.length : end);
    if (stream[0] !== 0x78) continue; // not a zlib header
    let inflated = 0;
    try {
      inflated = inflateSync(stream, {
        maxOutputLength: budget - total + 1,
        finishFlush: zlib.Z_SYNC_FLUSH,
      }).length;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError)
        inflated = budget - total + 1;
    }
    total += inflated;
    if (total > budget)
      throw new DocumentBudgetError(
        `its compressed streams inflate to more than ${budget} bytes (inflatedBytes)`,
      );
    if (end < 0) break;
    at = end;
  }
}

/** The text of each page, through the optional `unpdf` package; a page becomes one part (`page N`). */
export async function loadPdf(
  bytes: Uint8Array,
  limits: Pick<DocumentLimits, 'inflatedBytes' | 'pages'>,
  signal?: AbortSignal,
): Promise<LoadedDocument> {
  let unpdf: Unpdf;
  try {
    unpdf = (await import('unpdf')) as unknown as Unpdf;
  } catch (error) {
    throw new ConfigError('PDF files need the optional package unpdf (pnpm add unpdf)', { cause: error });
  }
  checkInflatedSize(bytes, limits.inflatedBytes);
  // pdf.js keeps the buffer: give it a copy so the caller's bytes stay intact.
  const pdf = await unpdf.getDocumentProxy(new Uint8Array(bytes));
  // A document stopped by its time budget (or the caller) is destroyed: pdf.js stops its work.
  const stop = () => void pdf.destroy().catch(() => undefined);
  signal?.addEventListener('abort', stop, { once: true });
  try {
    if (pdf.numPages > limits.pages)
      throw new DocumentBudgetError(`${pdf.numPages} pages, over the ${limits.pages}-page limit (pages)`);
    const { text } = await unpdf.extractText(pdf, { mergePages: false });
    signal?.throwIfAborted();
    const info = (await unpdf.getMeta?.(pdf).catch(() => undefined))?.info;
    const title = typeof info?.Title === 'string' && info.Title.trim() ? info.Title.trim() : undefined;
    return {
      format: 'pdf',
      ...(title !== undefined && { title }),
      parts: text.map((page, i) => ({ text: page, markdown: false, headings: [`page ${i + 1}`] })),
    };
  } finally {
    signal?.removeEventListener('abort', stop);
    stop();
  }
}
