import { CancelledError } from '@raf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestAgent, collect, context, type TestAgent, toolNamed } from '../test-support/agents.js';
import { type HttpServerProcess, startEverythingHttp, stdioEverything } from '../test-support/servers.js';

// @modelcontextprotocol/server-everything, the reference server, over both of its modern transports.
describe.each(['stdio', 'streamable HTTP'] as const)(
  'server-everything over %s',
  { timeout: 60_000 },
  (transport) => {
    let http: HttpServerProcess | undefined;
    let test: TestAgent;

    beforeAll(async () => {
      if (transport !== 'stdio') http = await startEverythingHttp();
      const config = http ? { url: http.url } : stdioEverything();
      test = await buildTestAgent(
        {
          tools: [{ kind: 'mcp', name: 'everything', config }],
          contexts: [
            {
              kind: 'mcp',
              name: 'docs',
              config: { ...config, tools: ['echo'], tool_name: { echo: 'docs_echo' } },
            },
          ],
        },
        [
          { toolCalls: [{ id: 'call_sum', name: 'get-sum', arguments: { a: 2, b: 40 } }] },
          { text: 'It is 42.' },
        ],
      );
    }, 30_000);

    afterAll(async () => {
      await test?.plugin.close();
      await http?.stop();
    });

    it('lists the tools (static: the tools entry; injected: the context) and calls one through the agent', async () => {
      const names = test.agent.tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image', 'trigger-long-running-operation']),
      );
      const updates = await collect(test.agent, 'What is 2 + 40?');
      expect(updates.find((u) => u.type === 'tool-called')).toEqual({
        type: 'tool-called',
        callId: 'call_sum',
        name: 'get-sum',
        result: { ok: true, data: 'The sum of 2 and 40 is 42.' },
      });
      expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
      const offered = test.client.calls[0]!.options.tools!.map((t) => t.name);
      expect(offered).toEqual(
        expect.arrayContaining(['get-sum', 'docs_echo', 'read_mcp_resource', 'get_mcp_prompt']),
      );
    });

    it('turns isError into ok: false, and images and structuredContent into data', async () => {
      const sum = toolNamed(test.agent.tools, 'get-sum');
      expect(await sum.execute({ a: 'two', b: 1 }, context())).toMatchObject({
        ok: false,
        error: expect.stringMatching(/Input validation error/),
      });
      const image = await toolNamed(test.agent.tools, 'get-tiny-image').execute({}, context());
      expect(image.ok).toBe(true);
      const parts = (image.data as { content: { type: string; mimeType?: string; data?: string }[] }).content;
      expect(parts.find((p) => p.type === 'image')).toMatchObject({
        mimeType: 'image/png',
        data: expect.stringMatching(/^iVBOR/),
      });
      expect(
        await toolNamed(test.agent.tools, 'get-structured-content').execute(
          { location: 'Chicago' },
          context(),
        ),
      ).toEqual({
        ok: true,
        data: {
          structuredContent: {
            temperature: expect.any(Number),
            conditions: expect.any(String),
            humidity: expect.any(Number),
          },
        },
      });
    });

    it('lists resources in the instructions and reads them with read_mcp_resource', async () => {
      const provider = test.agent.contextProviders.find((p) => p.kind === 'mcp')!;
      const result = await provider.onInvoking!({
        agentName: 'x',
        session: test.agent.createSession(),
        messages: [],
        input: [],
        signal: new AbortController().signal,
      });
      expect(result.instructions).toContain('demo://resource/static/document/architecture.md');
      expect(result.instructions).toContain('Prompts of the MCP server "docs"');
      expect(result.tools!.map((t) => t.name)).toEqual(['docs_echo', 'read_mcp_resource', 'get_mcp_prompt']);
      const read = toolNamed(result.tools!, 'read_mcp_resource');
      const text = await read.execute({ uri: 'demo://resource/static/document/architecture.md' }, context());
      expect(text).toMatchObject({ ok: true, data: expect.stringMatching(/Architecture/) });
      const prompt = await toolNamed(result.tools!, 'get_mcp_prompt').execute(
        { name: 'args-prompt', arguments: { city: 'Lyon' } },
        context(),
      );
      expect(JSON.stringify(prompt.data)).toContain('Lyon');
    });

    it('cancels a long-running tool: the call stops at once and the server stays usable', async () => {
      const long = toolNamed(test.agent.tools, 'trigger-long-running-operation');
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 300);
      await expect(long.execute({ duration: 30, steps: 30 }, context(controller.signal))).rejects.toSatisfy(
        (error) => CancelledError.isInstance(error),
      );
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(await toolNamed(test.agent.tools, 'echo').execute({ message: 'still here' }, context())).toEqual(
        {
          ok: true,
          data: 'Echo: still here',
        },
      );
    });
  },
);
