import type BetterSqlite3 from 'better-sqlite3';
import { cjkBigrams } from '../search/fts-query.js';

type Database = BetterSqlite3.Database;

/** One indexed file or URL. */
export interface StoredDocument {
  id: number;
  source: string;
  hash: string;
  size: number;
  mtimeMs: number;
  title: string | null;
  format: string;
  chunks: number;
  indexedAt: string;
}

export interface NewChunk {
  headings: string[];
  text: string;
  /** Unit-length embedding, or undefined for a lexical-only index. */
  vector?: Float32Array;
}

export interface ChunkRow {
  id: number;
  source: string;
  title: string | null;
  heading: string;
  text: string;
}

/** Bump when the tables change: an older file is rebuilt, not misread. */
const SCHEMA_VERSION = '1';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL UNIQUE,
  hash TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  title TEXT,
  format TEXT NOT NULL,
  chunks INTEGER NOT NULL,
  indexed_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY,
  document_id INTEGER NOT NULL,
  ord INTEGER NOT NULL,
  heading TEXT NOT NULL,
  text TEXT NOT NULL,
  vector BLOB
);
CREATE INDEX IF NOT EXISTS chunks_by_document ON chunks (document_id);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5 (
  text, heading, title,
  content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);
`;

/** bm25 column weights: body text, heading path, document title. */
const BM25 = 'bm25(chunks_fts, 1.0, 2.0, 1.0)';

const HEADING_SEPARATOR = ' > ';

async function openDatabase(path: string, readonly: boolean): Promise<Database> {
  // Loaded on first use: a native addon has no place in an agent's cold start.
  const module = (await import('better-sqlite3')) as unknown as { default: typeof BetterSqlite3 };
  // A second writer (another `raf index`) waits for the lock this long before it says what is locked.
  return new module.default(
    path,
    readonly ? { readonly: true, fileMustExist: true, timeout: 5_000 } : { timeout: 5_000 },
  );
}

/**
 * SQLite's `database is locked` after the busy timeout, said with the file (code kept:
 * `SQLITE_BUSY`, which the CLI reports with exit 5).
 */
function lockedError(error: unknown, path: string): unknown {
  const code = (error as { code?: unknown }).code;
  if (code !== 'SQLITE_BUSY' && code !== 'SQLITE_LOCKED') return error;
  return Object.assign(new Error(`${path} is locked by another writer (waited 5 s)`, { cause: error }), {
    code: 'SQLITE_BUSY',
  });
}

/**
 * The on-disk index of one knowledge context: documents, chunks, their vectors (BLOBs of unit
 * Float32 vectors) and an FTS5 table for BM25, all in one SQLite file. Synchronous, as
 * better-sqlite3 is: every call is short and the file is local.
 */
export class KnowledgeStore {
  private vectorCache:
    | { generation: number; ids: Int32Array; matrix: Float32Array; dimension: number }
    | undefined;
  private generation = 0;

  private constructor(
    private readonly db: Database,
    readonly path: string,
    readonly readonly: boolean,
  ) {}

  /** Opens (creating the file and tables unless `readonly`) the store at `path` (`:memory:` works). */
  static async open(path: string, options: { readonly?: boolean } = {}): Promise<KnowledgeStore> {
    const readonly = options.readonly === true;
    const db = await openDatabase(path, readonly);
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
      const version = hasMeta
        ? (db.prepare("SELECT value FROM meta WHERE key = 'schema'").pluck().get() as string | undefined)
        : undefined;
      if (version !== undefined && version !== SCHEMA_VERSION) {
        db.exec(
          'DROP TABLE IF EXISTS chunks_fts; DROP TABLE IF EXISTS chunks; DROP TABLE IF EXISTS documents; DROP TABLE IF EXISTS meta;',
        );
      }
      db.exec(SCHEMA);
      db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run('schema', SCHEMA_VERSION);
    }
    return new KnowledgeStore(db, path, readonly);
  }

  meta(key: string): string | undefined {
    return this.db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined;
  }

  setMeta(key: string, value: string): void {
    this.db
      .prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      )
      .run(key, value);
  }

  documents(): Map<string, StoredDocument> {
    const rows = this.db
      .prepare(
        'SELECT id, source, hash, size, mtime_ms AS mtimeMs, title, format, chunks, indexed_at AS indexedAt FROM documents',
      )
      .all() as StoredDocument[];
    return new Map(rows.map((row) => [row.source, row]));
  }

  /** The vectors a document's chunks had, by `embeddingText`, so unchanged chunks need no new embedding. */
  previousVectors(documentId: number): Map<string, Float32Array> {
    const rows = this.db
      .prepare(
        'SELECT c.heading, c.text, c.vector, d.title FROM chunks c JOIN documents d ON d.id = c.document_id WHERE document_id = ? AND vector IS NOT NULL',
      )
      .all(documentId) as { heading: string; text: string; vector: Buffer; title: string | null }[];
    return new Map(
      rows.map((r) => [
        embeddingText(r.title, r.heading.split(HEADING_SEPARATOR).filter(Boolean), r.text),
        toVector(r.vector),
      ]),
    );
  }

  /** Writes a document and its chunks in one transaction, replacing what it had. */
  putDocument(
    document: Omit<StoredDocument, 'id' | 'chunks' | 'indexedAt'>,
    chunks: readonly NewChunk[],
    indexedAt: string,
  ): void {
    const write = this.db.transaction(() => {
      this.deleteChunksOf(document.source);
      const { lastInsertRowid } = this.db
        .prepare(
          `INSERT INTO documents (source, hash, size, mtime_ms, title, format, chunks, indexed_at)
           VALUES (@source, @hash, @size, @mtimeMs, @title, @format, @chunks, @indexedAt)
           ON CONFLICT (source) DO UPDATE SET hash = excluded.hash, size = excluded.size,
             mtime_ms = excluded.mtime_ms, title = excluded.title, format = excluded.format,
             chunks = excluded.chunks, indexed_at = excluded.indexed_at`,
        )
        .run({ ...document, chunks: chunks.length, indexedAt });
      const id =
        (this.db
          .prepare('SELECT id FROM documents WHERE source = ?')
          .pluck()
          .get(document.source) as number) ?? Number(lastInsertRowid);
      const insertChunk = this.db.prepare(
        'INSERT INTO chunks (document_id, ord, heading, text, vector) VALUES (?, ?, ?, ?, ?)',
      );
      const insertText = this.db.prepare(
        'INSERT INTO chunks_fts (rowid, text, heading, title) VALUES (?, ?, ?, ?)',
      );
      chunks.forEach((chunk, ord) => {
        const heading = chunk.headings.join(HEADING_SEPARATOR);
        const vector = chunk.vector
          ? Buffer.from(chunk.vector.buffer, chunk.vector.byteOffset, chunk.vector.byteLength)
          : null;
        const row = insertChunk.run(id, ord, heading, chunk.text, vector);
        insertText.run(
          row.lastInsertRowid,
          cjkBigrams(chunk.text),
          cjkBigrams(heading),
          cjkBigrams(document.title ?? ''),
        );
      });
    });
    try {
      write.immediate();
    } catch (error) {
      throw lockedError(error, this.path);
    }
    this.generation++;
  }

  /** Records a new size and mtime for a file whose content hash did not change. */
  touchDocument(source: string, size: number, mtimeMs: number): void {
    this.db
      .prepare('UPDATE documents SET size = ?, mtime_ms = ? WHERE source = ?')
      .run(size, mtimeMs, source);
  }

  removeDocument(source: string): void {
    try {
      this.db
        .transaction(() => {
          this.deleteChunksOf(source);
          this.db.prepare('DELETE FROM documents WHERE source = ?').run(source);
        })
        .immediate();
    } catch (error) {
      throw lockedError(error, this.path);
    }
    this.generation++;
  }

  private deleteChunksOf(source: string): void {
    const ids = this.db
      .prepare('SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.source = ?')
      .pluck()
      .all(source) as number[];
    const deleteText = this.db.prepare('DELETE FROM chunks_fts WHERE rowid = ?');
    for (const id of ids) deleteText.run(id);
    this.db
      .prepare('DELETE FROM chunks WHERE document_id IN (SELECT id FROM documents WHERE source = ?)')
      .run(source);
  }

  /** Empties the index (a new embedding model or chunking: nothing old is comparable). */
  clear(): void {
    this.db.exec(
      "DELETE FROM chunks_fts; DELETE FROM chunks; DELETE FROM documents; DELETE FROM meta WHERE key <> 'schema';",
    );
    this.generation++;
  }

  /** BM25 ranking (best first) of an FTS5 query. */
  lexical(match: string, limit: number): number[] {
    if (!match) return [];
    return this.db
      .prepare(`SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY ${BM25} LIMIT ?`)
      .pluck()
      .all(match, limit) as number[];
  }

  /** Every vector as one matrix (rows in `ids` order), read once and kept until the index changes. */
  vectors(): { ids: Int32Array; matrix: Float32Array; dimension: number } {
    const cached = this.vectorCache;
    if (cached && cached.generation === this.generation) return cached;
    const dimension = Number(this.meta('embedding_dimension') ?? 0);
    const count = this.db
      .prepare('SELECT count(*) FROM chunks WHERE vector IS NOT NULL')
      .pluck()
      .get() as number;
    const ids = new Int32Array(count);
    const matrix = new Float32Array(count * dimension);
    let row = 0;
    for (const r of this.db
      .prepare('SELECT id, vector FROM chunks WHERE vector IS NOT NULL')
      .iterate() as Iterable<{ id: number; vector: Buffer }>) {
      if (row >= count || r.vector.byteLength !== dimension * 4) continue;
      ids[row] = r.id;
      matrix.set(toVector(r.vector), row * dimension);
      row++;
    }
    this.vectorCache = {
      generation: this.generation,
      ids: ids.subarray(0, row),
      matrix: matrix.subarray(0, row * dimension),
      dimension,
    };
    return this.vectorCache;
  }

  chunks(ids: readonly number[]): Map<number, ChunkRow> {
    if (ids.length === 0) return new Map();
    const rows = this.db
      .prepare(
        `SELECT c.id, d.source, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.document_id
         WHERE c.id IN (${ids.map(() => '?').join(',')})`,
      )
      .all(...ids) as ChunkRow[];
    return new Map(rows.map((r) => [r.id, r]));
  }

  counts(): { documents: number; chunks: number; vectors: number } {
    return this.db
      .prepare(
        `SELECT (SELECT count(*) FROM documents) AS documents, (SELECT count(*) FROM chunks) AS chunks,
                (SELECT count(*) FROM chunks WHERE vector IS NOT NULL) AS vectors`,
      )
      .get() as { documents: number; chunks: number; vectors: number };
  }

  /** A write that holds many documents: one transaction is much faster than one per document. */
  batch<T>(work: () => T): T {
    try {
      // BEGIN IMMEDIATE: the write lock is taken (or waited for) up front, not half-way through.
      return this.db.transaction(work).immediate();
    } catch (error) {
      throw lockedError(error, this.path);
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/**
 * What is embedded for a chunk: its document title and heading path, then its text. The context
 * line lets a passage that never names its subject ("brew them at 90 degrees") still match it.
 */
export function embeddingText(
  title: string | null | undefined,
  headings: readonly string[],
  text: string,
): string {
  const context = [title, ...headings]
    .filter((part, i, all) => part && all.indexOf(part) === i)
    .join(HEADING_SEPARATOR);
  return context ? `${context}\n\n${text}` : text;
}

function toVector(blob: Buffer): Float32Array {
  // A copy: the Buffer may share (and outlive) SQLite's memory, and may be unaligned.
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer);
}
