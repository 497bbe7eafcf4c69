import { appendFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AcquireLeaseOptions,
  foldJournal,
  type ISessionStore,
  type JournalEntry,
  SessionConflictError,
  SessionError,
  type SessionJournal,
  type SessionLease,
  type SessionSaveOptions,
  type SessionSnapshot,
  type SessionStoreOptions,
} from '@raf/core';
import { writeFileAtomic } from '../io/atomic-write.js';
import { sweepTempFiles } from '../io/temp-sweep.js';
import { nodeCrypto } from '../lazy-builtins.js';
import { leaseLost, leaseTtl, newHolder, renewEvery, waitForLease } from '../store/lease-holder.js';
import { renewLockFile, tryLockFile, unlockFile, whileHolding } from '../store/lock-file.js';
import { checkRevision, emptySnapshot } from '../store/store-common.js';
import { parseJournalEntry, safeParseSessionSnapshot } from './session-snapshot-schema.js';

// Ids become file names: keep them to a safe alphabet so no id can name a path outside the folder.
const SAFE_ID = /^[A-Za-z0-9._:@-]{1,200}$/;

function baseName(id: string): string {
  if (!SAFE_ID.test(id) || id === '.' || id === '..') {
    throw new SessionError(
      `session id ${JSON.stringify(id)} is not allowed: use letters, digits and . _ - : @ (at most 200)`,
    );
  }
  return id.replaceAll(':', '%3A');
}

const JOURNAL = /^(.+)\.journal-(\d+)\.jsonl$/;
const idOf = (name: string): string => name.replaceAll('%3A', ':');

/**
 * Sessions as files in one folder (SPEC §14.1):
 * - `<id>.json`: the snapshot with its `revision`, written to a temporary file and renamed into
 *   place (never torn);
 * - `<id>.journal-<revision>.jsonl`: the steps of the turn since that revision, one JSON line
 *   appended per step (the page cache keeps an appended line through a `kill -9`; a line torn by
 *   a crash mid-write is the step in flight and is dropped). A save writes revision + 1 and then
 *   removes the old journal: a journal of an older revision is never folded in.
 * - `<id>.lock`: the lease (pid, host, token); `<id>.claim-<hash>`: claimed approval batches.
 * Temporary files of killed writers are swept on first use.
 */
export class FileSessionStore implements ISessionStore {
  private swept: Promise<unknown> | undefined;
  /** Journals open in this process, by session id: a save moves them to the new revision. */
  private readonly journals = new Map<string, Set<{ revision: number }>>();

  constructor(readonly directory: string) {}

  private path(id: string, suffix: string): string {
    return join(this.directory, `${baseName(id)}${suffix}`);
  }

  private sweep(): Promise<unknown> {
    this.swept ??= sweepTempFiles(this.directory);
    return this.swept;
  }

  private async readSnapshot(id: string, signal?: AbortSignal): Promise<SessionSnapshot | undefined> {
    const file = this.path(id, '.json');
    let text: string;
    try {
      text = await readFile(file, { encoding: 'utf8', ...(signal && { signal }) });
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
        {
          cause: error,
        },
      );
    }
    const parsed = safeParseSessionSnapshot(data, `session file ${file}`);
    if (!parsed.success) throw parsed.error;
    return parsed.value;
  }

  private async readJournal(id: string, revision: number): Promise<JournalEntry[]> {
    const file = this.path(id, `.journal-${revision}.jsonl`);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new SessionError(`cannot read session journal ${file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const lines = text.split('\n');
    const entries: JournalEntry[] = [];
    for (const [index, line] of lines.entries()) {
      if (line === '') continue;
      let data: unknown;
      try {
        data = JSON.parse(line);
      } catch (error) {
        // The last line without its newline is a write a crash cut short: the step in flight.
        if (index === lines.length - 1) break;
        throw new SessionError(`session journal ${file}:${index + 1} is not valid JSON`, { cause: error });
      }
      entries.push(parseJournalEntry(data, `session journal ${file}:${index + 1}`));
    }
    return entries;
  }

  async load(id: string, options: SessionStoreOptions = {}): Promise<SessionSnapshot | undefined> {
    await this.sweep();
    const snapshot = await this.readSnapshot(id, options.signal);
    const revision = snapshot?.revision ?? 0;
    const journal = await this.readJournal(id, revision);
    if (!snapshot && journal.length === 0) return undefined;
    // A save killed before it removed the previous journal left it: folded into this revision already.
    if (revision > 0)
      await rm(this.path(id, `.journal-${revision - 1}.jsonl`), { force: true }).catch(() => undefined);
    return { ...foldJournal(snapshot ?? emptySnapshot(id), journal), revision };
  }

  async save(snapshot: SessionSnapshot, options: SessionSaveOptions = {}): Promise<number> {
    const file = this.path(snapshot.id, '.json');
    await this.sweep();
    const write = async (): Promise<number> => {
      const stored = (await this.readSnapshot(snapshot.id))?.revision ?? 0;
      checkRevision(snapshot.id, stored, options.expectedRevision);
      const revision = stored + 1;
      const { revision: _r, ...rest } = snapshot;
      await writeFileAtomic(file, `${JSON.stringify({ ...rest, revision }, null, 2)}\n`, options);
      for (const journal of this.journals.get(snapshot.id) ?? []) journal.revision = revision;
      await rm(this.path(snapshot.id, `.journal-${stored}.jsonl`), { force: true });
      return revision;
    };
    try {
      // Check and write under a short lock of their own, so two compare-and-set saves never both
      // pass; with a lease, also while no takeover can happen and only if the lease still holds.
      const { lease } = options;
      const fenced = !lease
        ? write
        : async () => {
            let revision = 0;
            const held = await whileHolding(this.path(snapshot.id, '.lock'), lease.token, async () => {
              revision = await write();
            });
            if (!held) throw leaseLost(snapshot.id);
            return revision;
          };
      return await this.underLock(snapshot.id, '.save-lock', fenced, options.signal);
    } catch (error) {
      if (SessionError.isInstance(error) || SessionConflictError.isInstance(error)) throw error;
      throw new SessionError(`cannot save session ${snapshot.id} to ${file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  private async underLock<T>(
    id: string,
    suffix: string,
    body: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    await mkdir(this.directory, { recursive: true });
    const path = this.path(id, suffix);
    const holder = newHolder();
    await waitForLease(id, { waitMs: 10_000, ...(signal && { signal }) }, async () =>
      (await tryLockFile(path, holder)) ? true : undefined,
    );
    try {
      return await body();
    } finally {
      await unlockFile(path, holder.token);
    }
  }

  async delete(id: string): Promise<void> {
    const base = baseName(id);
    const names = await readdir(this.directory).catch(() => [] as string[]);
    // Exactly this session's files: a prefix test would also take those of the session named
    // `<id>.journal-1` or `<id>.claim-x` (ids may hold dots and dashes).
    const own = (n: string) =>
      n === `${base}.json` ||
      (n.startsWith(base) && /^\.(journal-\d+\.jsonl|claim-[0-9a-f]{32})$/.test(n.slice(base.length)));
    await Promise.all(names.filter(own).map((n) => rm(join(this.directory, n), { force: true })));
  }

  async list(): Promise<string[]> {
    let files: string[];
    try {
      files = await readdir(this.directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new SessionError(`cannot list sessions in ${this.directory}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const ids = new Set<string>();
    for (const f of files) {
      if (f.startsWith('.')) continue;
      if (f.endsWith('.json')) ids.add(idOf(f.slice(0, -'.json'.length)));
      const journal = JOURNAL.exec(f);
      if (journal?.[1] && journal[2] === '0') ids.add(idOf(journal[1]));
    }
    return [...ids];
  }

  async acquireLease(id: string, options: AcquireLeaseOptions = {}): Promise<SessionLease> {
    const path = this.path(id, '.lock');
    await this.sweep();
    try {
      await mkdir(this.directory, { recursive: true });
    } catch (error) {
      throw new SessionError(
        `cannot create the sessions folder ${this.directory}: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    const ttl = leaseTtl(options);
    const holder = newHolder(Date.now(), ttl);
    await waitForLease(id, options, async () => {
      try {
        return (await tryLockFile(path, holder)) ? true : undefined;
      } catch (error) {
        // Read-only folder, full disk: found here, before the turn runs any tool.
        throw new SessionError(
          `cannot take session ${id} in ${this.directory}: ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }
    });
    // Under the takeover guard: a renewal never rewrites the lock file of a turn that took it over.
    const stopRenewing = renewEvery(async () => {
      await whileHolding(path, holder.token, () => renewLockFile(path, holder, ttl));
    }, ttl);
    let released = false;
    return {
      sessionId: id,
      token: holder.token,
      release: async () => {
        if (released) return;
        released = true;
        stopRenewing();
        this.journals.delete(id);
        await unlockFile(path, holder.token);
      },
    };
  }

  async openJournal(lease: SessionLease): Promise<SessionJournal> {
    const id = lease.sessionId;
    const state = { revision: (await this.readSnapshot(id))?.revision ?? 0 };
    let open = this.journals.get(id);
    if (!open) {
      open = new Set();
      this.journals.set(id, open);
    }
    open.add(state);
    return {
      append: async (entries, options = {}) => {
        options.signal?.throwIfAborted();
        const text = entries.map((e) => `${JSON.stringify(e)}\n`).join('');
        const file = this.path(id, `.journal-${state.revision}.jsonl`);
        // Fenced: written only while the lock file still names this turn's lease, with takeovers
        // held off meanwhile (an expired lease taken by another turn writes nothing more).
        const held = await whileHolding(this.path(id, '.lock'), lease.token, async () => {
          // One write, no fsync: what reached the page cache survives a kill -9 of this process.
          if (text !== '') await appendFile(file, text, { mode: 0o600 });
        });
        if (!held) throw leaseLost(id);
      },
    };
  }

  async claimApproval(id: string, key: string): Promise<boolean> {
    const hash = nodeCrypto().createHash('sha256').update(key).digest('hex').slice(0, 32);
    await mkdir(this.directory, { recursive: true });
    try {
      await writeFile(this.path(id, `.claim-${hash}`), key, { flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw new SessionError(`cannot claim the approval of session ${id}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}
