import {
  type AcquireLeaseOptions,
  foldJournal,
  type ISessionStore,
  type JournalEntry,
  type SessionJournal,
  type SessionLease,
  type SessionSaveOptions,
  type SessionSnapshot,
} from '@raf/core';
import { nodeCrypto } from '../lazy-builtins.js';
import { leaseLost, leaseTtl, waitForLease } from './lease-holder.js';
import { checkRevision, emptySnapshot } from './store-common.js';

interface Entry {
  snapshot?: SessionSnapshot;
  revision: number;
  journal: JournalEntry[];
  claims: Set<string>;
}

/** Keeps sessions in this process (tests, servers that own their sessions); leases are in-process. */
export class InMemorySessionStore implements ISessionStore {
  private readonly sessions = new Map<string, Entry>();
  private readonly leases = new Map<string, string>();
  private readonly released = new EventTarget();

  private entry(id: string): Entry {
    let entry = this.sessions.get(id);
    if (!entry) {
      entry = { revision: 0, journal: [], claims: new Set() };
      this.sessions.set(id, entry);
    }
    return entry;
  }

  async load(id: string): Promise<SessionSnapshot | undefined> {
    const entry = this.sessions.get(id);
    if (!entry || (!entry.snapshot && entry.journal.length === 0)) return undefined;
    const base = entry.snapshot ? structuredClone(entry.snapshot) : emptySnapshot(id);
    return { ...foldJournal(base, structuredClone(entry.journal)), revision: entry.revision };
  }

  async save(snapshot: SessionSnapshot, options: SessionSaveOptions = {}): Promise<number> {
    if (options.lease && this.leases.get(snapshot.id) !== options.lease.token) throw leaseLost(snapshot.id);
    const entry = this.entry(snapshot.id);
    checkRevision(snapshot.id, entry.revision, options.expectedRevision);
    const { revision: _r, ...rest } = structuredClone(snapshot);
    entry.snapshot = rest;
    entry.revision += 1;
    entry.journal = [];
    return entry.revision;
  }

  async delete(id: string): Promise<void> {
    this.sessions.delete(id);
  }

  async list(): Promise<string[]> {
    return [...this.sessions].filter(([, e]) => e.snapshot || e.journal.length > 0).map(([id]) => id);
  }

  async acquireLease(id: string, options: AcquireLeaseOptions = {}): Promise<SessionLease> {
    // In-process leases end only by release (this process is the only holder); `ttlMs` is checked alike.
    leaseTtl(options);
    return waitForLease(
      id,
      options,
      async () => {
        if (this.leases.has(id)) return undefined;
        const token = nodeCrypto().randomUUID();
        this.leases.set(id, token);
        let released = false;
        return {
          sessionId: id,
          token,
          release: async () => {
            if (released) return;
            released = true;
            if (this.leases.get(id) === token) this.leases.delete(id);
            this.released.dispatchEvent(new Event(id));
          },
        };
      },
      (signal) =>
        new Promise<void>((resolve) => {
          this.released.addEventListener(id, () => resolve(), { once: true, signal });
        }),
    );
  }

  async openJournal(lease: SessionLease): Promise<SessionJournal> {
    return {
      append: async (entries) => {
        // Fenced: a turn whose lease was released (and maybe taken by another) writes nothing more.
        if (this.leases.get(lease.sessionId) !== lease.token) throw leaseLost(lease.sessionId);
        this.entry(lease.sessionId).journal.push(...structuredClone(entries));
      },
    };
  }

  async claimApproval(id: string, key: string): Promise<boolean> {
    const claims = this.entry(id).claims;
    if (claims.has(key)) return false;
    claims.add(key);
    return true;
  }
}
