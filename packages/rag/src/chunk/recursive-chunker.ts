import { type ChunkOptions, chunkSizes } from './chunk.js';

/** The upstream RecursiveChunker's separators: paragraphs, lines, sentences (CJK and Latin), words, characters. */
export const RECURSIVE_SEPARATORS: readonly string[] = ['\n\n', '\n', '。', '. ', ' ', ''];

/** Splits on the first separator the text contains, keeping each separator with the piece before it. */
function splitKeeping(
  text: string,
  separators: readonly string[],
): { pieces: string[]; rest: readonly string[] } {
  for (let i = 0; i < separators.length; i++) {
    const separator = separators[i] as string;
    if (separator === '') return { pieces: [...text], rest: [] };
    if (!text.includes(separator)) continue;
    const parts = text.split(separator);
    const pieces = parts.map((part, j) => (j < parts.length - 1 ? part + separator : part)).filter(Boolean);
    return { pieces, rest: separators.slice(i + 1) };
  }
  return { pieces: [text], rest: [] };
}

/** Pieces no longer than `size`: a long piece is split again with the finer separators. */
function atoms(text: string, size: number, separators: readonly string[], out: string[]): void {
  const { pieces, rest } = splitKeeping(text, separators);
  for (const piece of pieces) {
    if (piece.length <= size || rest.length === 0) out.push(piece);
    else atoms(piece, size, rest, out);
  }
}

/**
 * The recursive character splitter (LangChain's and the upstream's): split on the coarsest
 * separator that keeps pieces under `chunkSize`, then pack pieces into chunks, starting each new
 * chunk with up to `chunkOverlap` of the previous one's tail pieces.
 */
export function chunkRecursive(text: string, options: ChunkOptions = {}): string[] {
  const { size, overlap } = chunkSizes(options);
  const pieces: string[] = [];
  atoms(text, size, RECURSIVE_SEPARATORS, pieces);
  const chunks: string[] = [];
  const window: string[] = [];
  let length = 0;
  const emit = () => {
    const chunk = window.join('').trim();
    if (chunk) chunks.push(chunk);
  };
  for (const piece of pieces) {
    if (length + piece.length > size && window.length > 0) {
      emit();
      // Keep the tail pieces that fit in the overlap (and leave room for the new piece).
      while (window.length > 0 && (length > overlap || length + piece.length > size)) {
        length -= (window.shift() as string).length;
      }
    }
    window.push(piece);
    length += piece.length;
  }
  emit();
  return chunks;
}
