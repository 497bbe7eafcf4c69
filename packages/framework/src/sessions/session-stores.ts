import type { ISessionStore, SessionSnapshot, SessionStoreOptions } from '@raf/core';

/** Keeps sessions in this process (tests, servers that own their sessions). */
export class InMemorySessionStore implements ISessionStore {
  private readonly sessions = new Map<string, SessionSnapshot>();

  async load(id: string): Promise<SessionSnapshot | undefined> {
    const snapshot = this.sessions.get(id);
    return snapshot ? structuredClone(snapshot) : undefined;
  }

  async save(snapshot: SessionSnapshot): Promise<void> {
    this.sessions.set(snapshot.id, structuredClone(snapshot));
  }

  async delete(id: string): Promise<void> {
    this.sessions.delete(id);
  }

  async list(): Promise<string[]> {
    return [...this.sessions.keys()];
  }
}

/**
 * Prefixes ids with `<key>::` so tenants (users, workspaces) sharing one store never see each
 * other's sessions; `list()` returns only this key's ids, unprefixed.
 */
export class ScopedSessionStore implements ISessionStore {
  private readonly prefix: string;

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

  save(snapshot: SessionSnapshot, options?: SessionStoreOptions): Promise<void> {
    return this.inner.save({ ...snapshot, id: this.prefix + snapshot.id }, options);
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
