import { ConfigError } from '@raf/core';
import type { LoadedDocument } from './document.js';

type Unpdf = {
  getDocumentProxy(data: Uint8Array): Promise<unknown>;
  extractText(pdf: unknown, options: { mergePages: false }): Promise<{ text: string[] }>;
  getMeta?(pdf: unknown): Promise<{ info?: Record<string, unknown> }>;
};

/** The text of each page, through the optional `unpdf` package; a page becomes one part (`page N`). */
export async function loadPdf(bytes: Uint8Array): Promise<LoadedDocument> {
  let unpdf: Unpdf;
  try {
    unpdf = (await import('unpdf')) as unknown as Unpdf;
  } catch (error) {
    throw new ConfigError('PDF files need the optional package unpdf (pnpm add unpdf)', { cause: error });
  }
  // pdf.js keeps the buffer: give it a copy so the caller's bytes stay intact.
  const pdf = await unpdf.getDocumentProxy(new Uint8Array(bytes));
  const { text } = await unpdf.extractText(pdf, { mergePages: false });
  const info = (await unpdf.getMeta?.(pdf).catch(() => undefined))?.info;
  const title = typeof info?.Title === 'string' && info.Title.trim() ? info.Title.trim() : undefined;
  return {
    format: 'pdf',
    ...(title !== undefined && { title }),
    parts: text.map((page, i) => ({ text: page, markdown: false, headings: [`page ${i + 1}`] })),
  };
}
