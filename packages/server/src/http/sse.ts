import type { ServerResponse } from 'node:http';

/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

export interface SseStream {
  /** Writes one event (`id:` when given); waits while the client reads slower than the run writes. */
  send(data: unknown, options?: { id?: number | string; event?: string }): Promise<void>;
  /** Writes several events in one piece (one write, one syscall), each with its `id:`. */
  sendAll(events: readonly { id: number | string; data: unknown }[]): Promise<void>;
  end(): void;
  readonly closed: boolean;
}

/** The headers of every stream; a HEAD is answered with the same ones. */
const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  connection: 'keep-alive',
  // Proxies (nginx) buffer responses by default; a stream must pass through as written.
  'x-accel-buffering': 'no',
};

/** A HEAD on a stream: its headers alone, at once (the stream itself would wait for the run). */
export function sseHead(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, { ...SSE_HEADERS, ...headers }).end();
}

/** Starts a `text/event-stream` answer on `res`. */
export function openSse(res: ServerResponse, headers: Record<string, string> = {}): SseStream {
  res.writeHead(200, { ...SSE_HEADERS, ...headers });
  // A browser's EventSource reconnects after a second (its default is 3 s) with Last-Event-ID.
  res.write('retry: 1000\n\n');
  const heartbeat = setInterval(() => {
    if (!res.writableEnded) res.write(': keep-alive\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();
  res.once('close', () => clearInterval(heartbeat));
  /** Writes, then waits while the client reads slower than the run writes. */
  const write = async (text: string) => {
    if (res.writableEnded || res.destroyed || text === '') return;
    if (!res.write(text))
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
  };
  return {
    async send(data, options = {}) {
      const head = `${options.id !== undefined ? `id: ${options.id}\n` : ''}${options.event ? `event: ${options.event}\n` : ''}`;
      await write(`${head}data: ${JSON.stringify(data)}\n\n`);
    },
    async sendAll(events) {
      let text = '';
      for (const { id, data } of events) text += `id: ${id}\ndata: ${JSON.stringify(data)}\n\n`;
      await write(text);
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
