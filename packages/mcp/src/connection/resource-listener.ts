import { getErrorMessage } from '@raf/core';
import { listenModern, type ModernListen } from './modern-client.js';
import type { SdkClient } from './sdk.js';
import type { ServerLog } from './server-log.js';

/**
 * 2026-07-28: `resources/subscribe` is gone; one `subscriptions/listen` stream carries the changes
 * of every followed resource (and the list changes). A new stream replaces the one open before;
 * when one ends (the server went away, restarted, ended it), `ended` runs: what changed meanwhile
 * is unknown, so the followers read again on the next run, which listens again.
 */
export class ResourceListener {
  private open: { stream: ModernListen; uris: ReadonlySet<string> } | undefined;

  constructor(
    private readonly log: ServerLog,
    private readonly ended: () => void,
    private readonly timeoutMs: number,
  ) {}

  /** Whether a stream is open now. */
  get listening(): boolean {
    return this.open !== undefined;
  }

  /** Whether the open stream carries the changes of every one of `uris`. */
  covers(uris: readonly string[]): boolean {
    const open = this.open;
    return open !== undefined && uris.every((uri) => open.uris.has(uri));
  }

  async listen(client: SdkClient, uris: ReadonlySet<string>): Promise<void> {
    const previous = this.open;
    this.open = undefined;
    try {
      const stream = await listenModern(client, [...uris], this.timeoutMs);
      const open = { stream, uris: new Set(uris) };
      this.open = open;
      void stream.closed.then((how) => {
        if (this.open !== open) return;
        this.open = undefined;
        this.log.event(`subscriptions/listen ended (${how}); listening again on the next run`);
        this.ended();
      });
      this.log.event(`listening (subscriptions/listen) to ${uris.size} resource(s)`);
    } catch (error) {
      this.log.event(`subscriptions/listen failed: ${getErrorMessage(error)}`);
    }
    await previous?.stream.close().catch(() => undefined);
  }

  /** Closes the open stream (the connection closes). */
  async close(): Promise<void> {
    const open = this.open;
    this.open = undefined;
    await open?.stream.close().catch(() => undefined);
  }
}
