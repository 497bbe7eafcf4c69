/** What changed: new events, or the run's record (status, a cancel request). */
export type RunChange = 'events' | 'record';

/** Listeners per run in this process: the wake-up every store gives its own replica. */
export class LocalWatchers {
  private readonly byRun = new Map<string, Set<(change: RunChange) => void>>();

  watch(runId: string, listener: (change: RunChange) => void): () => void {
    let set = this.byRun.get(runId);
    if (!set) {
      set = new Set();
      this.byRun.set(runId, set);
    }
    set.add(listener);
    return () => {
      const current = this.byRun.get(runId);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.byRun.delete(runId);
    };
  }

  wake(runId: string, change: RunChange): void {
    const set = this.byRun.get(runId);
    if (!set) return;
    // A listener that throws is the listener's bug; the others still hear of the change.
    for (const listener of [...set])
      try {
        listener(change);
      } catch {}
  }

  /** Runs someone watches here (the Postgres store listens for those only). */
  watched(): string[] {
    return [...this.byRun.keys()];
  }

  has(runId: string): boolean {
    return this.byRun.has(runId);
  }
}
