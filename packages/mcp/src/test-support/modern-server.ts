// A server of the 2026-07-28 revision only, on the official SDK v2 (`createMcpHandler` with
// `legacy: 'reject'`: a 2025 `initialize` gets -32022), over streamable HTTP on 127.0.0.1.
import { createServer } from 'node:http';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { type ModernState, modernServer } from './modern-tools.js';

export interface ModernServer {
  url: string;
  state: ModernState;
  /** Changes the followed resource and says so on the open `subscriptions/listen` streams. */
  setNote(note: string): void;
  /** Cuts every open connection (the listen streams too), as a proxy or a restart would. */
  dropConnections(): void;
  close(): Promise<void>;
}

export async function startModernServer(options: { hostile?: boolean } = {}): Promise<ModernServer> {
  const state: ModernState = { note: 'first', reads: 0 };
  const handler = createMcpHandler(() => modernServer(state, options), { legacy: 'reject' });
  const http = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string') headers.set(name, value);
      const abort = new AbortController();
      res.once('close', () => abort.abort());
      const response = await handler.fetch(
        new Request(`http://127.0.0.1${req.url ?? '/'}`, {
          method: req.method ?? 'GET',
          headers,
          signal: abort.signal,
          ...(body.length > 0 && { body }),
        }),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      // A listen stream stays open: each event is written (and flushed) as it comes.
      if (response.body) for await (const chunk of response.body) res.write(chunk);
      res.end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
      else res.end();
    }
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    state,
    setNote: (note) => {
      state.note = note;
      handler.notify.resourceUpdated('test://note');
    },
    dropConnections: () => http.closeAllConnections(),
    close: async () => {
      await handler.close?.();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
