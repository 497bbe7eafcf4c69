import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type ISessionStore, SessionError, type SessionSnapshot, type SessionStoreOptions } from '@raf/core';
import { writeFileAtomic } from '../io/atomic-write.js';
import { safeParseSessionSnapshot } from './session-snapshot-schema.js';

// Ids become file names: keep them to a safe alphabet so no id can name a path outside the folder.
const SAFE_ID = /^[A-Za-z0-9._:@-]{1,200}$/;

function fileName(id: string): string {
  if (!SAFE_ID.test(id) || id === '.' || id === '..') {
    throw new SessionError(
      `session id ${JSON.stringify(id)} is not allowed: use letters, digits and . _ - : @ (at most 200)`,
    );
  }
  return `${id.replaceAll(':', '%3A')}.json`;
}

function idOf(file: string): string {
  return file.slice(0, -'.json'.length).replaceAll('%3A', ':');
}

/**
 * Stores each session as `<dir>/<id>.json`, written to a temporary file and renamed into place,
 * so a crash mid-write never leaves a torn file. A corrupt file is reported as a `SessionError`
 * naming it, never a crash, and is left untouched for inspection.
 */
export class FileSessionStore implements ISessionStore {
  constructor(readonly directory: string) {}

  async load(id: string, options: SessionStoreOptions = {}): Promise<SessionSnapshot | undefined> {
    const file = join(this.directory, fileName(id));
    let text: string;
    try {
      text = await readFile(file, { encoding: 'utf8', ...(options.signal && { signal: options.signal }) });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new SessionError(`cannot read session file ${file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new SessionError(
        `session file ${file} is corrupt (not valid JSON: ${(error as Error).message})`,
        { cause: error },
      );
    }
    const parsed = safeParseSessionSnapshot(data, `session file ${file}`);
    if (!parsed.success) throw parsed.error;
    return parsed.value;
  }

  async save(snapshot: SessionSnapshot, options: SessionStoreOptions = {}): Promise<void> {
    const file = join(this.directory, fileName(snapshot.id));
    try {
      await writeFileAtomic(file, `${JSON.stringify(snapshot, null, 2)}\n`, options);
    } catch (error) {
      throw new SessionError(`cannot save session ${snapshot.id} to ${file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  async delete(id: string): Promise<void> {
    await rm(join(this.directory, fileName(id)), { force: true });
  }

  async list(): Promise<string[]> {
    try {
      const files = await readdir(this.directory);
      return files.filter((f) => f.endsWith('.json') && !f.startsWith('.')).map(idOf);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new SessionError(`cannot list sessions in ${this.directory}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}
