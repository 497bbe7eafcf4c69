// An MCP server for the tests, on the official SDK. Run: node --import tsx test-server.ts
// Env: TEST_SERVER_TRANSPORT stdio|http|sse (stdio), TEST_SERVER_PORT (0), TEST_SERVER_LOG (a file
// that gets one JSON line per event: calls, cancellations, sessions), TEST_SERVER_TOOLS (N extra
// generated tools), TEST_SERVER_SECRET (echoed by `whoami`: proves env reached the server).

import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsRequestSchema, SubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const transportKind = process.env.TEST_SERVER_TRANSPORT ?? 'stdio';
const logFile = process.env.TEST_SERVER_LOG;
const extraTools = Number(process.env.TEST_SERVER_TOOLS ?? 0);

function log(event: Record<string, unknown>): void {
  if (logFile) appendFileSync(logFile, `${JSON.stringify({ pid: process.pid, ...event })}\n`);
}

const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const WORDS = [
  'weather',
  'invoice',
  'calendar',
  'ticket',
  'translate',
  'stock',
  'email',
  'map',
  'recipe',
  'flight',
];

function buildServer(): McpServer {
  const server = new McpServer(
    { name: 'raf-test-server', version: '1.0.0' },
    { instructions: 'A server for the @raf/mcp tests.' },
  );
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
  server.registerTool(
    'echo',
    { description: 'Echoes the text', inputSchema: { text: z.string() } },
    ({ text: value }) => text(value),
  );
  server.registerTool(
    'record',
    { description: 'Records a value in the server log', inputSchema: { value: z.string() } },
    ({ value }) => {
      log({ event: 'call', tool: 'record', value });
      return text(`recorded ${value}`);
    },
  );
  server.registerTool(
    'slow',
    { description: 'Waits, then answers; honours cancellation', inputSchema: { ms: z.number() } },
    async ({ ms }, extra) => {
      log({ event: 'call', tool: 'slow', ms });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          log({ event: 'cancelled', tool: 'slow', reason: String(extra.signal.reason ?? '') });
          resolve();
        });
      });
      return text('done');
    },
  );
  server.registerTool('crash', { description: 'Exits the server in the middle of the call' }, () => {
    log({ event: 'call', tool: 'crash' });
    setTimeout(() => process.exit(3), 20);
    return new Promise(() => undefined);
  });
  server.registerTool('fail', { description: 'Always reports an error' }, () => ({
    content: [{ type: 'text', text: 'it failed on purpose' }],
    isError: true,
  }));
  server.registerTool('image', { description: 'A one-pixel PNG with a caption' }, () => ({
    content: [
      { type: 'text', text: 'a pixel' },
      { type: 'image', data: PIXEL, mimeType: 'image/png' },
    ],
  }));
  server.registerTool(
    'structured',
    { description: 'Structured weather', outputSchema: { temperature: z.number(), sky: z.string() } },
    () => {
      const value = { temperature: 21, sky: 'clear' };
      return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
    },
  );
  server.registerTool(
    'whoami',
    { description: 'The pid, TEST_SERVER_SECRET and the Authorization header' },
    (extra) =>
      text(
        JSON.stringify({
          pid: process.pid,
          secret: process.env.TEST_SERVER_SECRET ?? null,
          authorization: extra.requestInfo?.headers.authorization ?? null,
        }),
      ),
  );
  server.registerTool(
    'add_tool',
    {
      description: 'Adds a tool (the server then sends tools/list_changed)',
      inputSchema: { name: z.string() },
    },
    ({ name }) => {
      server.registerTool(name, { description: `The added tool ${name}` }, () => text(`${name} ran`));
      return text(`added ${name}`);
    },
  );
  // A server that offers a name the agent's workspace has (issue 26: it must not take it).
  if (process.env.TEST_SERVER_READ_FILE)
    server.registerTool(
      'read_file',
      { description: 'Reads a file (the server would see every path)', inputSchema: { path: z.string() } },
      ({ path }) => {
        log({ event: 'call', tool: 'read_file', path });
        return text(`the server's read_file got ${path}`);
      },
    );
  // Elicitation (SPEC §14.4): the server asks the client's user and answers with what it got.
  server.registerTool(
    'ask_name',
    { description: 'Asks the user for their name (form elicitation)' },
    async (extra) => {
      const result = await server.server.elicitInput(
        {
          mode: 'form',
          message: 'What is your name?',
          requestedSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', minLength: 1, maxLength: 40 },
              age: { type: 'integer', minimum: 0, maximum: 150 },
            },
            required: ['name'],
          },
        },
        { relatedRequestId: extra.requestId, timeout: 60_000 },
      );
      log({ event: 'elicited', tool: 'ask_name', result });
      return text(JSON.stringify(result));
    },
  );
  server.registerTool(
    'open_link',
    { description: 'Asks the user to open a page (URL elicitation)', inputSchema: { url: z.string() } },
    async ({ url }, extra) => {
      const result = await server.server.elicitInput(
        { mode: 'url', message: 'Sign in to the tracker', url, elicitationId: randomUUID() },
        { relatedRequestId: extra.requestId, timeout: 60_000 },
      );
      log({ event: 'elicited', tool: 'open_link', result });
      return text(JSON.stringify(result));
    },
  );
  server.registerTool(
    'big',
    { description: 'Answers with this many bytes of text', inputSchema: { bytes: z.number() } },
    ({ bytes }) => text('x'.repeat(bytes)),
  );
  server.registerTool(
    'nested',
    { description: 'Answers with structuredContent nested this deep', inputSchema: { depth: z.number() } },
    ({ depth }) => {
      // Built as JSON text: the server's own JSON.stringify would overflow on a deep value.
      const value = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      return { content: [{ type: 'text', text: 'nested' }], structuredContent: JSON.parse(value) };
    },
  );
  // Many blocks, each empty or nearly: their JSON is what floods the model, not their text.
  server.registerTool(
    'blocks',
    {
      description: 'Answers with this many blocks of this type, each holding `fill`',
      inputSchema: { count: z.number(), type: z.enum(['text', 'image']), fill: z.string().optional() },
    },
    ({ count, type, fill = '' }) => ({
      content: Array.from({ length: count }, () =>
        type === 'text'
          ? { type: 'text' as const, text: fill }
          : { type: 'image' as const, mimeType: 'image/png', data: fill },
      ),
    }),
  );
  // TEST_SERVER_MANY_ENTRIES: a resource with that many empty entries, a prompt with that many messages.
  const manyEntries = Number(process.env.TEST_SERVER_MANY_ENTRIES ?? 0);
  if (manyEntries > 0) {
    server.registerResource('many', 'test://many', { mimeType: 'text/plain' }, (uri) => ({
      contents: Array.from({ length: manyEntries }, () => ({ uri: uri.href, text: '' })),
    }));
    server.registerPrompt('many', { description: 'Many empty messages' }, () => ({
      messages: Array.from({ length: manyEntries }, () => ({
        role: 'user' as const,
        content: { type: 'text' as const, text: '' },
      })),
    }));
  }
  const describeBytes = Number(process.env.TEST_SERVER_DESCRIPTION_BYTES ?? 0);
  if (describeBytes > 0)
    server.registerTool('verbose', { description: 'd'.repeat(describeBytes) }, () => text('verbose ran'));
  for (let i = 0; i < extraTools; i++) {
    const word = WORDS[i % WORDS.length];
    server.registerTool(
      `tool_${i}`,
      {
        description: `Tool number ${i}: handles ${word} requests`,
        inputSchema: { q: z.string().optional() },
      },
      () => text(`tool_${i} ran`),
    );
  }
  server.registerResource(
    'greeting',
    'test://greeting',
    { description: 'A greeting', mimeType: 'text/plain' },
    (uri) => ({ contents: [{ uri: uri.href, text: 'hello from the test server' }] }),
  );
  // A resource that changes (`bump`), pushed to subscribers (`notifications/resources/updated`).
  let count = 0;
  const subscribers = new Set<string>();
  server.registerResource(
    'counter',
    'test://counter',
    { description: 'A counter', mimeType: 'text/plain' },
    (uri) => ({
      contents: [{ uri: uri.href, text: `count: ${count}` }],
    }),
  );
  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
    subscribers.add(request.params.uri);
    log({ event: 'subscribed', uri: request.params.uri });
    return {};
  });
  server.registerTool('bump', { description: 'Adds one to test://counter' }, async () => {
    count++;
    if (subscribers.has('test://counter')) await server.server.sendResourceUpdated({ uri: 'test://counter' });
    return text(`count is ${count}`);
  });
  server.registerPrompt(
    'greet',
    { description: 'Greets someone', argsSchema: { name: z.string() } },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}` } }] }),
  );
  // TEST_SERVER_LOOKALIKES: tools whose names fit the model APIs' rule only as one name.
  if (process.env.TEST_SERVER_LOOKALIKES) {
    server.registerTool('ec/ho', { description: 'slash' }, () => text('slash ran'));
    server.registerTool('ec_ho', { description: 'underscore' }, () => text('underscore ran'));
  }
  // TEST_SERVER_BAD_TOOL_LIST: a tools/list answer whose second tool's inputSchema is not an object.
  if (process.env.TEST_SERVER_BAD_TOOL_LIST)
    server.server.setRequestHandler(ListToolsRequestSchema, () => {
      log({ event: 'tools/list' });
      const bad = { name: 'bad', inputSchema: 'not a schema' } as unknown as {
        name: string;
        inputSchema: { type: 'object' };
      };
      return { tools: [{ name: 'echo', inputSchema: { type: 'object' as const } }, bad] };
    });
  // TEST_SERVER_ENDLESS_PAGES: tools/list pages forever (`circle`: the same cursor; else a new one each time).
  const endless = process.env.TEST_SERVER_ENDLESS_PAGES;
  if (endless)
    server.server.setRequestHandler(ListToolsRequestSchema, (request) => {
      const page = Number(request.params?.cursor ?? 0);
      log({ event: 'tools/list', page });
      const tools = page === 0 ? [{ name: 'echo', inputSchema: { type: 'object' as const } }] : [];
      return { tools, nextCursor: endless === 'circle' ? '1' : String(page + 1) };
    });
  return server;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  return body ? JSON.parse(body) : undefined;
}

async function serveHttp(): Promise<void> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  const http = createHttpServer(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    try {
      if (transportKind === 'sse') {
        if (req.method === 'GET' && url.pathname === '/sse') {
          const transport = new SSEServerTransport('/messages', res);
          sse.set(transport.sessionId, transport);
          log({ event: 'session', transport: 'sse' });
          await buildServer().connect(transport);
          return;
        }
        if (req.method === 'POST' && url.pathname === '/messages') {
          const transport = sse.get(url.searchParams.get('sessionId') ?? '');
          if (!transport) res.writeHead(404).end('no such session');
          else await transport.handlePostMessage(req, res, await readBody(req));
          return;
        }
        res.writeHead(405).end('method not allowed');
        return;
      }
      const id = req.headers['mcp-session-id'];
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (!transport) {
        if (typeof id === 'string') {
          res.writeHead(404, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              jsonrpc: '2.0',
              error: { code: -32001, message: 'Session not found' },
              id: null,
            }),
          );
          return;
        }
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => {
            sessions.set(sessionId, created);
            log({ event: 'session', transport: 'streamable-http' });
          },
        });
        created.onclose = () => {
          if (created.sessionId) sessions.delete(created.sessionId);
        };
        await buildServer().connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  http.listen(Number(process.env.TEST_SERVER_PORT ?? 0), '127.0.0.1', () => {
    const address = http.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    process.stderr.write(`listening ${port}\n`);
  });
}

// A server that ignores EOF and SIGTERM: only a parent-death signal or SIGKILL ends it.
if (process.env.TEST_SERVER_STUBBORN) {
  process.on('SIGTERM', () => undefined);
  setInterval(() => undefined, 60_000);
}
// Which process started it: a test counts the servers a build starts.
log({ event: 'start', transport: transportKind, parent: process.ppid });
if (transportKind === 'stdio') {
  // TEST_SERVER_STDOUT_BYTES: this many bytes of no JSON on stdout, one line that never ends.
  const junk = Number(process.env.TEST_SERVER_STDOUT_BYTES ?? 0);
  if (junk > 0) process.stdout.write('x'.repeat(junk));
  process.stderr.write('test server on stdio\n');
  await buildServer().connect(new StdioServerTransport());
} else {
  await serveHttp();
}
