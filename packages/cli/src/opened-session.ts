import {
  approvalBatchKey,
  DEFAULT_LEASE_WAIT_MS,
  parseStoreUrl,
  SessionConflictError,
  type SessionJournal,
  type SessionLease,
} from '@raf/core';
import { locateExtension } from '@raf/decl';
import { AgentSession, createStore, type RafStore } from '@raf/framework';
import type { CliArgs } from './args.js';
import type { CliIO } from './io.js';
import { refuseWrongKind } from './path-kind.js';
import { storeChoice } from './store-choice.js';

/** Opens the command's store; `@raf/postgres` is looked for here and in the project at `cwd`. */
export async function openCliStore(args: CliArgs, io: CliIO): Promise<RafStore> {
  const choice = storeChoice(args, io);
  const location = parseStoreUrl(choice.url);
  // Found before the turn runs, not when its session cannot be saved after it.
  if (choice.sessionsDirectory !== undefined && args.sessionsDirGiven)
    await refuseWrongKind('--sessions-dir', choice.sessionsDirectory, io.cwd, 'folder');
  else if (location.kind === 'file' && args.store !== undefined)
    await refuseWrongKind('--store', location.directory, io.cwd, 'folder');
  return createStore(choice.url, {
    cwd: io.cwd,
    ...(choice.sessionsDirectory !== undefined && { sessionsDirectory: choice.sessionsDirectory }),
    importPackage: async (name) => {
      const url = locateExtension(name, io.cwd, (n) => import.meta.resolve(n));
      if (!url)
        throw Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' });
      return import(url);
    },
  });
}

/** Session metadata: the last approval batch a `raf run` claimed (`approvalBatchKey`). */
const RESUMED_APPROVAL = 'raf.resumedApproval';

/**
 * A session a command works on: with `lease`, the turn holds the session's lease (a second turn
 * waits `--wait` seconds, then starts from this one's result), journals its steps, and saves
 * compare-and-set on the revision it loaded.
 */
export class OpenedSession {
  private revision: number;

  private constructor(
    readonly store: RafStore,
    private readonly ownsStore: boolean,
    readonly session: AgentSession,
    readonly resumed: boolean,
    revision: number,
    private readonly lease: SessionLease | undefined,
    readonly journal: SessionJournal | undefined,
  ) {
    this.revision = revision;
  }

  /** Opens the command's store (`--store`, `--sessions-dir`, `RAF_STORE`) and the session in it. */
  static async open(
    args: CliArgs,
    io: CliIO,
    id: string | undefined,
    options: { lease?: boolean } = {},
  ): Promise<OpenedSession> {
    const store = await openCliStore(args, io);
    try {
      return await OpenedSession.openIn(
        store,
        id,
        { ...options, ...(args.waitMs !== undefined && { waitMs: args.waitMs }) },
        true,
      );
    } catch (error) {
      await store.close();
      throw error;
    }
  }

  /** The session `id` (a new one when undefined) in an open store, which stays open on `close()`. */
  static async openIn(
    store: RafStore,
    id: string | undefined,
    options: { lease?: boolean; waitMs?: number } = {},
    ownsStore = false,
  ): Promise<OpenedSession> {
    let lease: SessionLease | undefined;
    try {
      const sessionId = id ?? crypto.randomUUID();
      // Taking the lease writes to the store: a read-only folder or a full disk is found here,
      // before any tool runs.
      if (options.lease)
        lease = await store.sessions.acquireLease(sessionId, {
          waitMs: options.waitMs ?? DEFAULT_LEASE_WAIT_MS,
        });
      // An id the store refuses (`""`, `../x`) is refused here, also before the turn.
      const existing = id !== undefined ? await store.sessions.load(id) : undefined;
      const session = existing ? AgentSession.fromJSON(existing) : new AgentSession(sessionId);
      const journal = lease ? await store.sessions.openJournal(lease) : undefined;
      return new OpenedSession(
        store,
        ownsStore,
        session,
        existing !== undefined,
        existing?.revision ?? 0,
        lease,
        journal,
      );
    } catch (error) {
      await lease?.release().catch(() => undefined);
      throw error;
    }
  }

  /** Saves compare-and-set: another turn's save since this one loaded is a `SessionConflictError`. */
  async save(): Promise<void> {
    this.revision = await this.store.sessions.save(this.session.toJSON(), {
      expectedRevision: this.revision,
      // A turn whose lease was lost (stalled past its expiry, taken by another turn) saves nothing.
      ...(this.lease && { lease: this.lease }),
    });
  }

  /**
   * Claims the paused batch before its approved calls run: a second resumer (or one after a crash
   * of the first) is told it was already resumed. The claim is marked in the session's metadata
   * (saved with the turn), so a resumer that comes after the save, when no batch is paused any
   * more, can tell "resumed already" from "never paused".
   */
  async claimPending(): Promise<void> {
    const batch = this.session.pendingApproval;
    if (!batch) return;
    const key = approvalBatchKey(batch);
    if (!(await this.store.sessions.claimApproval(this.session.id, key)))
      throw new SessionConflictError(
        this.session.id,
        'claimed',
        `session ${this.session.id}: the paused approval was already resumed by another process`,
      );
    this.session.metadata[RESUMED_APPROVAL] = key;
  }

  /** The key of the session's last claimed batch, while no new turn started since. */
  get resumedApproval(): string | undefined {
    const key = this.session.metadata[RESUMED_APPROVAL];
    return typeof key === 'string' ? key : undefined;
  }

  /** A new turn starts: no batch of it was claimed. */
  forgetResumedApproval(): void {
    delete this.session.metadata[RESUMED_APPROVAL];
  }

  async close(): Promise<void> {
    await this.lease?.release().catch(() => undefined);
    if (this.ownsStore) await this.store.close();
  }
}
