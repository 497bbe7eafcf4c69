/** A piece of a document as it is indexed and returned. */
export interface Chunk {
  text: string;
  /** The heading path of a markdown section, outermost first (`["Install", "From npm"]`). */
  headings: string[];
}

export interface ChunkOptions {
  /** Largest chunk, in estimated tokens (default 512). */
  chunkSize?: number;
  /** Tokens repeated from the end of one chunk at the start of the next (default 50). */
  chunkOverlap?: number;
}

export const DEFAULT_CHUNK_SIZE = 512;
export const DEFAULT_CHUNK_OVERLAP = 50;

/**
 * Characters per token for sizing chunks: the usual estimate for English prose (OpenAI's rule of
 * thumb). Chunk sizes are a retrieval budget, not a model limit, so an estimate is enough.
 */
export const CHARS_PER_TOKEN = 4;

/** The sizes in characters, checked: an overlap at or above the size would never advance. */
export function chunkSizes(options: ChunkOptions = {}): { size: number; overlap: number } {
  const size = Math.max(1, Math.floor((options.chunkSize ?? DEFAULT_CHUNK_SIZE) * CHARS_PER_TOKEN));
  const overlap = Math.max(0, Math.floor((options.chunkOverlap ?? DEFAULT_CHUNK_OVERLAP) * CHARS_PER_TOKEN));
  if (overlap >= size) {
    throw new RangeError(
      `chunkOverlap (${options.chunkOverlap}) must be smaller than chunkSize (${options.chunkSize ?? DEFAULT_CHUNK_SIZE})`,
    );
  }
  return { size, overlap };
}
