import { afterEach, describe, expect, it } from 'vitest';
import { buildTestAgent, collect, context, type TestAgent, toolNamed } from '../test-support/agents.js';
import { stdioTestServer } from '../test-support/servers.js';
import { cutText, DEFAULT_MAX_DESCRIPTION_BYTES, DEFAULT_MAX_RESULT_BYTES } from './result-cap.js';

const agents: TestAgent[] = [];
afterEach(async () => {
  for (const test of agents.splice(0)) await test.plugin.close();
});

const MB = 1024 * 1024;

// Issue 26: an 8 MB result reached the next model request whole and stayed in the session; a 2 MB
// description was sent on every request.
describe('what of a server reaches the model is capped', { timeout: 60_000 }, () => {
  it('an 8 MB result is cut to maxResultBytes (default) and says truncated; the session keeps only that', async () => {
    const test = await buildTestAgent(
      { contexts: [{ kind: 'mcp', name: 'srv', config: { ...stdioTestServer(), tools: ['big'] } }] },
      [{ toolCalls: [{ id: 'c1', name: 'big', arguments: { bytes: 8 * MB } }] }, { text: 'ok' }],
    );
    agents.push(test);
    const session = test.agent.createSession();
    const updates = await collect(test.agent, 'go', { session });
    const called = updates.find((u) => u.type === 'tool-called') as {
      result: { ok: boolean; data: unknown };
    };
    expect(called.result.ok).toBe(true);
    expect(called.result.data).toMatchObject({
      truncated: true,
      totalBytes: 8 * MB,
      maxResultBytes: DEFAULT_MAX_RESULT_BYTES,
    });
    // Its JSON (the text and the block's own keys) is within the cap, all but a few bytes of it text.
    const text = (called.result.data as { text: string }).text;
    expect(text.length).toBeLessThanOrEqual(DEFAULT_MAX_RESULT_BYTES);
    expect(text.length).toBeGreaterThan(DEFAULT_MAX_RESULT_BYTES - 64);
    // The model's next request carried the cut result, not 8 MB.
    const second = JSON.stringify(test.client.calls[1]!.messages);
    expect(second.length).toBeLessThan(DEFAULT_MAX_RESULT_BYTES + 10_000);
    expect(JSON.stringify(session.toJSON()).length).toBeLessThan(DEFAULT_MAX_RESULT_BYTES + 20_000);
  });

  it('a 2 MB description is cut to maxDescriptionBytes; both caps are configurable', async () => {
    const test = await buildTestAgent({
      tools: [
        {
          kind: 'mcp',
          name: 'srv',
          config: {
            ...stdioTestServer({ TEST_SERVER_DESCRIPTION_BYTES: String(2 * MB) }),
            tools: ['verbose', 'big'],
            max_result_bytes: 2048,
          },
        },
      ],
    });
    agents.push(test);
    const verbose = toolNamed(test.agent.tools, 'verbose');
    expect(Buffer.byteLength(verbose.description)).toBeLessThanOrEqual(DEFAULT_MAX_DESCRIPTION_BYTES);
    expect(verbose.description.endsWith('…')).toBe(true);
    const result = await toolNamed(test.agent.tools, 'big').execute({ bytes: 10_000 }, context());
    expect(result).toMatchObject({
      ok: true,
      data: { truncated: true, totalBytes: 10_000, maxResultBytes: 2048 },
    });

    const small = await buildTestAgent({
      tools: [
        {
          kind: 'mcp',
          name: 'srv2',
          config: {
            ...stdioTestServer({ TEST_SERVER_DESCRIPTION_BYTES: '5000' }),
            tools: ['verbose'],
            max_description_bytes: 100,
          },
        },
      ],
    });
    agents.push(small);
    expect(Buffer.byteLength(toolNamed(small.agent.tools, 'verbose').description)).toBeLessThanOrEqual(100);
  });

  it('a result within the cap is untouched', async () => {
    const test = await buildTestAgent({
      tools: [{ kind: 'mcp', name: 'srv', config: { ...stdioTestServer(), tools: ['big'] } }],
    });
    agents.push(test);
    expect(await toolNamed(test.agent.tools, 'big').execute({ bytes: 100 }, context())).toEqual({
      ok: true,
      data: 'x'.repeat(100),
    });
  });

  it('structuredContent nested 5,000 deep is left out with truncated, not a stack overflow; 10 deep stays', async () => {
    // A server with a bigger stack can send what the agent's default stack cannot JSON.stringify.
    const server = stdioTestServer();
    const config = { ...server, args: ['--stack-size=7000', ...server.args], tools: ['nested'] };
    const test = await buildTestAgent({ tools: [{ kind: 'mcp', name: 'srv', config }] });
    agents.push(test);
    const nested = toolNamed(test.agent.tools, 'nested');
    const deep = await nested.execute({ depth: 5000 }, context());
    expect(deep).toMatchObject({ ok: true, data: { truncated: true } });
    expect(JSON.stringify(deep)).toContain('nested deeper than 64 levels');
    expect(JSON.stringify(deep)).not.toContain('call stack');
    const shallow = await nested.execute({ depth: 10 }, context());
    expect(shallow).toMatchObject({ ok: true, data: { structuredContent: { a: { a: {} } } } });
    expect(JSON.stringify(shallow)).not.toContain('truncated');
  });

  it('a stdio message over the SDK limit (10 MiB) fails the call saying so; the next call restarts the server', async () => {
    const test = await buildTestAgent({
      tools: [{ kind: 'mcp', name: 'srv', config: { ...stdioTestServer(), tools: ['big'] } }],
    });
    agents.push(test);
    const big = toolNamed(test.agent.tools, 'big');
    const over = await big.execute({ bytes: 12 * MB }, context());
    expect(over).toMatchObject({ ok: false });
    const error = (over as { error: string }).error;
    expect(error).toMatch(/MCP server 'srv' sent a message over 10 MiB during big/);
    expect(error).not.toMatch(/exited or crashed/);
    expect(await big.execute({ bytes: 10 }, context())).toEqual({ ok: true, data: 'x'.repeat(10) });
  });

  it('cuts UTF-8 on a character boundary', () => {
    expect(cutText('ééé', 5)).toBe('éé');
    expect(cutText('abc', 10)).toBe('abc');
  });
});
