import type { DocumentFormat, LoadedDocument } from './document.js';
import { DocumentBudgetError, type DocumentLimits, documentLimits } from './document-limits.js';
import { loadHtml } from './load-html.js';
import { loadMarkdown, loadText } from './load-markdown.js';
import { loadPdf } from './load-pdf.js';

/**
 * Makes readable text of a file's bytes in the given format, within the document budgets: over
 * `limits.timeMs` (or when `signal` aborts) the document is refused and its loader stopped.
 */
export async function loadDocument(
  bytes: Uint8Array,
  format: DocumentFormat,
  limits: DocumentLimits = documentLimits(),
  signal?: AbortSignal,
): Promise<LoadedDocument> {
  const budget = new AbortController();
  const timer = setTimeout(
    () => budget.abort(new DocumentBudgetError(`not read within ${limits.timeMs} ms (timeMs)`)),
    limits.timeMs,
  );
  const stop = AbortSignal.any(signal ? [signal, budget.signal] : [budget.signal]);
  try {
    const work = load(bytes, format, limits, stop);
    const stopped = new Promise<never>((_, reject) => {
      const fail = () => reject(stop.reason);
      if (stop.aborted) fail();
      else stop.addEventListener('abort', fail, { once: true });
    });
    work.catch(() => undefined);
    stopped.catch(() => undefined);
    return await Promise.race([work, stopped]);
  } finally {
    clearTimeout(timer);
    budget.abort(); // releases the race's listener
  }
}

async function load(
  bytes: Uint8Array,
  format: DocumentFormat,
  limits: DocumentLimits,
  signal: AbortSignal,
): Promise<LoadedDocument> {
  if (format === 'pdf') return loadPdf(bytes, limits, signal);
  const text = new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
  if (format === 'html') return loadHtml(text);
  if (format === 'markdown') return loadMarkdown(text);
  return loadText(text);
}
