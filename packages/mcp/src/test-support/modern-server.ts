// A server of the 2026-07-28 revision only, on the official SDK v2 (`createMcpHandler` with
// `legacy: 'reject'`: a 2025 `initialize` gets -32022), over streamable HTTP on 127.0.0.1.
import { createServer } from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

export interface ModernServer {
  url: string;
  close(): Promise<void>;
}

export async function startModernServer(): Promise<ModernServer> {
  const handler = createMcpHandler(
    () => {
      const server = new McpServer(
        { name: 'raf-modern-test', version: '2.0.0' },
        { capabilities: { tools: {} } },
      );
      const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
      server.registerTool(
        'hello',
        { description: 'Greets, from a 2026-07-28 server', inputSchema: z.object({ who: z.string() }) },
        async ({ who }) => text(`hello ${who}, from 2026-07-28`),
      );
      // The same name as the 1.x test server's tool: the second server's is prefixed.
      server.registerTool(
        'echo',
        { description: 'Echoes, from a 2026-07-28 server', inputSchema: z.object({ text: z.string() }) },
        async ({ text: value }) => text(`modern ${value}`),
      );
      server.registerTool(
        'big',
        { description: 'This many bytes of text', inputSchema: z.object({ bytes: z.number() }) },
        async ({ bytes }) => text('y'.repeat(bytes)),
      );
      return server;
    },
    { legacy: 'reject' },
  );
  const http = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string') headers.set(name, value);
      const response = await handler.fetch(
        new Request(`http://127.0.0.1${req.url ?? '/'}`, {
          method: req.method ?? 'GET',
          headers,
          ...(body.length > 0 && { body }),
        }),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) for await (const chunk of response.body) res.write(chunk);
      res.end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await handler.close?.();
    },
  };
}
