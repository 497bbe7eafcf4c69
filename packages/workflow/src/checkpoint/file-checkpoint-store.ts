import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError } from '@raf/core';
import { writeFileAtomic } from './atomic-write.js';
import {
  type Checkpoint,
  type CheckpointInfo,
  type CheckpointStore,
  type CheckpointStoreOptions,
  infoOf,
  parseCheckpoint,
} from './checkpoint-store.js';

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function checkId(kind: string, id: string): string {
  if (!SAFE_ID.test(id) || id.includes('..'))
    throw new ConfigError(`${kind} "${id}" may hold only letters, digits, ".", "_" and "-" (up to 128)`);
  return id;
}

/**
 * One JSON file per checkpoint, `<dir>/<runId>/<checkpointId>.json`, each written atomically (a
 * process killed mid-write leaves the previous checkpoints whole).
 */
export interface FileCheckpointStoreOptions {
  /**
   * Removes the temporary files a killed writer left in a run's folder; called once per folder
   * before its first read or write. Pass `sweepTempFiles` of `@raf/framework` (the one sweeper:
   * it knows this store's `.<name>.<pid>.<hex>.tmp` names); without it debris stays.
   */
  sweepTempFiles?: (folder: string) => Promise<unknown>;
}

export class FileCheckpointStore implements CheckpointStore {
  readonly directory: string;
  readonly #sweep: FileCheckpointStoreOptions['sweepTempFiles'];
  readonly #swept = new Map<string, Promise<unknown>>();

  constructor(directory: string, options: FileCheckpointStoreOptions = {}) {
    this.directory = resolve(directory);
    this.#sweep = options.sweepTempFiles;
  }

  private runFolder(runId: string): string {
    return join(this.directory, checkId('run id', runId));
  }

  /** The run's folder, swept of a killed writer's debris the first time it is touched. */
  private async openFolder(runId: string): Promise<string> {
    const folder = this.runFolder(runId);
    if (this.#sweep) {
      let swept = this.#swept.get(folder);
      if (!swept) {
        swept = this.#sweep(folder).catch(() => 0);
        this.#swept.set(folder, swept);
      }
      await swept;
    }
    return folder;
  }

  async save(checkpoint: Checkpoint, options: CheckpointStoreOptions = {}): Promise<void> {
    const folder = await this.openFolder(checkpoint.runId);
    await mkdir(folder, { recursive: true });
    const file = join(folder, `${checkId('checkpoint id', checkpoint.id)}.json`);
    await writeFileAtomic(file, JSON.stringify(checkpoint), options.signal);
  }

  private async ids(runId: string): Promise<string[]> {
    const names = await readdir(await this.openFolder(runId)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[];
      throw error;
    });
    return names
      .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
      .map((n) => n.slice(0, -'.json'.length))
      .sort();
  }

  private async read(
    runId: string,
    id: string,
  ): Promise<{ checkpoint: Checkpoint; bytes: number } | undefined> {
    const text = await readFile(
      join(this.runFolder(runId), `${checkId('checkpoint id', id)}.json`),
      'utf8',
    ).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (text === undefined) return undefined;
    return {
      checkpoint: parseCheckpoint(text, `checkpoint file ${join(this.runFolder(runId), `${id}.json`)}`),
      bytes: Buffer.byteLength(text),
    };
  }

  async load(runId: string, checkpointId?: string): Promise<Checkpoint | undefined> {
    const id = checkpointId ?? (await this.ids(runId)).at(-1);
    return id === undefined ? undefined : (await this.read(runId, id))?.checkpoint;
  }

  async list(runId: string): Promise<CheckpointInfo[]> {
    const infos: CheckpointInfo[] = [];
    for (const id of await this.ids(runId)) {
      const found = await this.read(runId, id);
      if (found) infos.push(infoOf(found.checkpoint, found.bytes));
    }
    return infos;
  }

  async prune(runId: string, keep: number): Promise<number> {
    const ids = await this.ids(runId);
    const doomed = ids.slice(0, Math.max(0, ids.length - keep));
    for (const id of doomed) await rm(join(this.runFolder(runId), `${id}.json`), { force: true });
    return doomed.length;
  }

  async delete(runId: string): Promise<void> {
    await rm(this.runFolder(runId), { recursive: true, force: true });
  }

  async runs(): Promise<string[]> {
    const entries = await readdir(this.directory, { withFileTypes: true }).catch(() => []);
    return entries.filter((e) => e.isDirectory() && SAFE_ID.test(e.name)).map((e) => e.name);
  }
}
