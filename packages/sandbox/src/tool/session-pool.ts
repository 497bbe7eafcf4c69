import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';

/** What a persisted session holds: a scratch folder on disk (Python/shell); JS lives in the worker. */
export interface SessionEntry {
  key: string;
  scratchDir?: string;
  lastUsed: number;
  /** Calls of one session run one at a time: they share its interpreter and its files. */
  queue: Promise<unknown>;
}

const live = new Set<SessionPool>();
let exitHookInstalled = false;

/** Scratch folders must not outlive the process, however it ends. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pool of live) pool.removeAllSync();
  });
}

/**
 * Persisted sessions, bounded: at most `maxSessions` (the least recently used goes first) and
 * each dropped after `idleMs` without a call. Dropping calls `onDrop` (the JS interpreter) and
 * removes the session's scratch folder.
 */
export class SessionPool {
  private readonly entries = new Map<string, SessionEntry>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly options: { maxSessions: number; idleMs: number; onDrop(key: string): void }) {}

  get(key: string): SessionEntry {
    let entry = this.entries.get(key);
    if (entry) this.entries.delete(key); // re-inserted: Map order is recency order
    entry ??= { key, lastUsed: Date.now(), queue: Promise.resolve() };
    entry.lastUsed = Date.now();
    this.entries.set(key, entry);
    while (this.entries.size > this.options.maxSessions) {
      const oldest = this.entries.keys().next().value as string;
      void this.drop(oldest);
    }
    this.watch();
    return entry;
  }

  /** Runs `work` after the session's earlier calls. */
  serialize<T>(entry: SessionEntry, work: () => Promise<T>): Promise<T> {
    const next = entry.queue.then(work, work);
    entry.queue = next.catch(() => undefined);
    return next;
  }

  trackScratch(entry: SessionEntry, dir: string): void {
    entry.scratchDir = dir;
    live.add(this);
    installExitHook();
  }

  async drop(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.options.onDrop(key);
    if (entry.scratchDir) await rm(entry.scratchDir, { recursive: true, force: true });
    if (this.entries.size === 0) this.stopWatching();
  }

  async dropAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((key) => this.drop(key)));
    live.delete(this);
  }

  removeAllSync(): void {
    for (const entry of this.entries.values())
      if (entry.scratchDir) rmSync(entry.scratchDir, { recursive: true, force: true });
  }

  private watch(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(
      () => {
        const cutoff = Date.now() - this.options.idleMs;
        for (const entry of this.entries.values()) if (entry.lastUsed < cutoff) void this.drop(entry.key);
      },
      Math.min(this.options.idleMs, 60_000),
    );
    this.sweeper.unref();
  }

  private stopWatching(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
