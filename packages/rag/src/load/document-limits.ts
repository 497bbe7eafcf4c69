import { ConfigError } from '@raf/core';

/**
 * What indexing one document may cost. A file under the 50 MB source cap can still inflate to
 * gigabytes (a PDF's compressed streams) or hold 100,000 pages; over a budget the document is
 * refused (reported in `failed`, the rest of the index goes on), never half-indexed.
 */
export interface DocumentLimits {
  /** Bytes a PDF's compressed (non-image) streams may inflate to, summed (default 32 MiB). */
  inflatedBytes: number;
  /** Pages of a PDF (default 2,000). */
  pages: number;
  /** Wall time to turn one document into text (default 30 s). */
  timeMs: number;
}

export const DEFAULT_DOCUMENT_LIMITS: Readonly<DocumentLimits> = {
  inflatedBytes: 32 * 1024 * 1024,
  pages: 2000,
  timeMs: 30_000,
};

export function documentLimits(overrides: Partial<DocumentLimits> = {}): DocumentLimits {
  return { ...DEFAULT_DOCUMENT_LIMITS, ...overrides };
}

/** A document over one of its budgets: refused, with the budget named. */
export class DocumentBudgetError extends ConfigError {
  constructor(message: string) {
    super(`document refused: ${message}`);
  }
}
