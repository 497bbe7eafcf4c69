/** What a loader makes of a file: readable text in parts, each chunked on its own. */
export interface LoadedDocument {
  format: DocumentFormat;
  title?: string;
  parts: DocumentPart[];
}

export interface DocumentPart {
  text: string;
  /** Chunk with the markdown-aware chunker (headings kept) rather than the plain recursive one. */
  markdown: boolean;
  /** A heading path given by the loader itself (a PDF page: `["page 3"]`). */
  headings: string[];
}

export type DocumentFormat = 'markdown' | 'text' | 'html' | 'pdf';

const BY_EXTENSION: Readonly<Record<string, DocumentFormat>> = {
  md: 'markdown',
  markdown: 'markdown',
  mdx: 'markdown',
  txt: 'text',
  text: 'text',
  rst: 'text',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  pdf: 'pdf',
};

/** The extensions a folder or glob source picks up. */
export const SUPPORTED_EXTENSIONS: readonly string[] = Object.keys(BY_EXTENSION);

/** The format of a file by its name, or of a download by its content type; undefined when unsupported. */
export function formatOf(name: string, contentType?: string): DocumentFormat | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'application/pdf') return 'pdf';
  if (type === 'text/markdown' || type === 'text/x-markdown') return 'markdown';
  const extension = /\.([a-z0-9]+)$/i.exec(name.replace(/[?#].*$/, ''))?.[1]?.toLowerCase();
  if (extension !== undefined && BY_EXTENSION[extension]) return BY_EXTENSION[extension];
  if (type === 'text/plain') return 'text';
  return undefined;
}
