import type {
  AcquireLeaseOptions,
  ISessionStore,
  SessionJournal,
  SessionLease,
  SessionSaveOptions,
  SessionSnapshot,
  SessionStoreOptions,
} from '@raf/core';

export { InMemorySessionStore } from '../store/memory-session-store.js';

/**
 * Prefixes ids with `<key>::` so tenants (users, workspaces) sharing one store never see each
 * other's sessions; `list()` returns only this key's ids, unprefixed.
 */
export class ScopedSessionStore implements ISessionStore {
  private readonly prefix: string;
  private readonly leases = new WeakMap<SessionLease, SessionLease>();

  constructor(
    private readonly inner: ISessionStore,
    key: string,
  ) {
    if (key === '' || key.includes('::'))
      throw new TypeError('ScopedSessionStore: the key must be non-empty and contain no "::"');
    this.prefix = `${key}::`;
  }

  async load(id: string, options?: SessionStoreOptions): Promise<SessionSnapshot | undefined> {
    const snapshot = await this.inner.load(this.prefix + id, options);
    return snapshot ? { ...snapshot, id } : undefined;
  }

  save(snapshot: SessionSnapshot, options?: SessionSaveOptions): Promise<number> {
    let inner = options;
    if (options?.lease) {
      const lease = this.leases.get(options.lease);
      if (!lease) throw new TypeError('ScopedSessionStore.save: the lease is not one of this store');
      inner = { ...options, lease };
    }
    return this.inner.save({ ...snapshot, id: this.prefix + snapshot.id }, inner);
  }

  async acquireLease(id: string, options?: AcquireLeaseOptions): Promise<SessionLease> {
    const inner = await this.inner.acquireLease(this.prefix + id, options);
    const lease: SessionLease = { sessionId: id, token: inner.token, release: (o) => inner.release(o) };
    this.leases.set(lease, inner);
    return lease;
  }

  openJournal(lease: SessionLease, options?: SessionStoreOptions): Promise<SessionJournal> {
    const inner = this.leases.get(lease);
    if (!inner) throw new TypeError('ScopedSessionStore.openJournal: the lease is not one of this store');
    return this.inner.openJournal(inner, options);
  }

  claimApproval(id: string, key: string, options?: SessionStoreOptions): Promise<boolean> {
    return this.inner.claimApproval(this.prefix + id, key, options);
  }

  delete(id: string, options?: SessionStoreOptions): Promise<void> {
    return this.inner.delete(this.prefix + id, options);
  }

  async list(options?: SessionStoreOptions): Promise<string[]> {
    return (await this.inner.list(options))
      .filter((id) => id.startsWith(this.prefix))
      .map((id) => id.slice(this.prefix.length));
  }
}

/**
 * Deletes sessions not updated for `ttlMs`; returns the deleted ids. Sessions that fail to load
 * are left alone (a corrupt file is reported by `load`, not silently removed).
 */
export async function cleanupExpiredSessions(
  store: ISessionStore,
  ttlMs: number,
  options: SessionStoreOptions & { now?: number } = {},
): Promise<string[]> {
  const now = options.now ?? Date.now();
  const deleted: string[] = [];
  for (const id of await store.list(options)) {
    options.signal?.throwIfAborted();
    const snapshot = await store.load(id, options).catch(() => undefined);
    if (snapshot && now - Date.parse(snapshot.updatedAt) > ttlMs) {
      await store.delete(id, options);
      deleted.push(id);
    }
  }
  return deleted;
}
