import type { ServerResponse } from 'node:http';

/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

export interface SseStream {
  /** Writes one event (`id:` when given); waits while the client reads slower than the run writes. */
  send(data: unknown, options?: { id?: number | string; event?: string }): Promise<void>;
  end(): void;
  readonly closed: boolean;
}

/** Starts a `text/event-stream` answer on `res`. */
export function openSse(res: ServerResponse, headers: Record<string, string> = {}): SseStream {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    // Proxies (nginx) buffer responses by default; a stream must pass through as written.
    'x-accel-buffering': 'no',
    ...headers,
  });
  res.flushHeaders();
  const heartbeat = setInterval(() => {
    if (!res.writableEnded) res.write(': keep-alive\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();
  res.once('close', () => clearInterval(heartbeat));
  return {
    async send(data, options = {}) {
      if (res.writableEnded || res.destroyed) return;
      const head = `${options.id !== undefined ? `id: ${options.id}\n` : ''}${options.event ? `event: ${options.event}\n` : ''}`;
      if (!res.write(`${head}data: ${JSON.stringify(data)}\n\n`))
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
    },
    end() {
      clearInterval(heartbeat);
      if (!res.writableEnded) res.end();
    },
    get closed() {
      return res.writableEnded || res.destroyed;
    },
  };
}
