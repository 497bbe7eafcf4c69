import type { DocumentFormat, LoadedDocument } from './document.js';
import { loadHtml } from './load-html.js';
import { loadMarkdown, loadText } from './load-markdown.js';
import { loadPdf } from './load-pdf.js';

/** Makes readable text of a file's bytes in the given format. */
export async function loadDocument(bytes: Uint8Array, format: DocumentFormat): Promise<LoadedDocument> {
  if (format === 'pdf') return loadPdf(bytes);
  const text = new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
  if (format === 'html') return loadHtml(text);
  if (format === 'markdown') return loadMarkdown(text);
  return loadText(text);
}
