import pg from 'pg';

/**
 * One `LISTEN raf_session_lease` connection per store, opened on the first wait: a released
 * lease wakes its waiters at once instead of at their next poll.
 */
export class LeaseWakeups {
  private client: Promise<pg.Client> | undefined;
  private readonly events = new EventTarget();

  constructor(private readonly config: pg.ClientConfig) {}

  private listen(): Promise<pg.Client> {
    this.client ??= (async () => {
      const client = new pg.Client(this.config);
      client.on('notification', (message) => {
        if (message.payload) this.events.dispatchEvent(new Event(message.payload));
      });
      // A dropped connection only costs the wakeups: waiters still poll.
      client.on('error', () => {
        this.client = undefined;
      });
      await client.connect();
      await client.query('LISTEN raf_session_lease');
      return client;
    })();
    return this.client;
  }

  /** Resolves when session `id`'s lease is released (or `signal` fires). */
  async next(id: string, signal: AbortSignal): Promise<void> {
    await this.listen();
    await new Promise<void>((resolve) => {
      this.events.addEventListener(id, () => resolve(), { once: true, signal });
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await (await client.catch(() => undefined))?.end().catch(() => undefined);
  }
}
