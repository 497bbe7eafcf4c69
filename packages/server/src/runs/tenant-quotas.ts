import { HttpError } from '../http/http-error.js';

export interface RunLimits {
  /** Runs one tenant may have running at once in this replica (default 16); more: 429. */
  maxConcurrentRunsPerTenant?: number;
  /** Event streams one tenant may have open at once in this replica (default 1024); more: 429. */
  maxStreamsPerTenant?: number;
}

/** Counts per tenant, a key dropped at zero (a map of every tenant ever seen would only grow). */
class Counter {
  private readonly counts = new Map<string, number>();
  get(tenant: string): number {
    return this.counts.get(tenant) ?? 0;
  }
  add(tenant: string): void {
    this.counts.set(tenant, this.get(tenant) + 1);
  }
  remove(tenant: string): void {
    const now = this.get(tenant) - 1;
    if (now <= 0) this.counts.delete(tenant);
    else this.counts.set(tenant, now);
  }
}

/**
 * What one tenant may hold at once in this replica: running runs and open event streams. Past
 * either, a 429: one token cannot take every run slot or socket of the replica from the others.
 */
export class TenantQuotas {
  private readonly maxRuns: number;
  private readonly maxStreams: number;
  private readonly runs = new Counter();
  private readonly streams = new Counter();

  constructor(limits: RunLimits = {}) {
    this.maxRuns = limits.maxConcurrentRunsPerTenant ?? 16;
    this.maxStreams = limits.maxStreamsPerTenant ?? 1024;
  }

  /** Counts a run of the tenant (429 past the limit); `releaseRun` when it stops here. */
  reserveRun(tenant: string): void {
    if (this.runs.get(tenant) >= this.maxRuns)
      throw new HttpError(
        429,
        'too_many_runs',
        `at most ${this.maxRuns} runs at once per token; wait for one to finish`,
      );
    this.runs.add(tenant);
  }

  releaseRun(tenant: string): void {
    this.runs.remove(tenant);
  }

  /** Counts an open event stream of the tenant (429 past the limit); call the returned function when it ends. */
  openStream(tenant: string): () => void {
    if (this.streams.get(tenant) >= this.maxStreams)
      throw new HttpError(429, 'too_many_streams', `at most ${this.maxStreams} open event streams per token`);
    this.streams.add(tenant);
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.streams.remove(tenant);
    };
  }
}
