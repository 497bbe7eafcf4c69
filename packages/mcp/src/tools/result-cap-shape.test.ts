import { afterEach, describe, expect, it } from 'vitest';
import { buildTestAgent, collect, context, type TestAgent, toolNamed } from '../test-support/agents.js';
import { stdioTestServer } from '../test-support/servers.js';
import { capCallResult, cutJsonText, DEFAULT_MAX_RESULT_BYTES, MAX_RESULT_BLOCKS } from './result-cap.js';
import { resourceContents, toToolResult } from './tool-result.js';

const agents: TestAgent[] = [];
afterEach(async () => {
  for (const test of agents.splice(0)) await test.plugin.close();
});

const CAP = DEFAULT_MAX_RESULT_BYTES;
// What may come on top of the cap: the `truncated` marks and one note.
const SLACK = 512;
const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

// The cap counted only the bytes inside the blocks: 150,000 empty image blocks passed as an
// 8.4 MB result, 350,000 empty text blocks as 350 KB of newlines, 200,000 one-byte blocks as
// 331,071 characters, and the session kept all of it.
describe('the result cap bounds the JSON, whatever the shape of the answer', { timeout: 60_000 }, () => {
  it('150,000 empty image blocks: at most MAX_RESULT_BLOCKS kept, a note, truncated; the session stays small', async () => {
    const test = await buildTestAgent(
      { contexts: [{ kind: 'mcp', name: 'srv', config: { ...stdioTestServer(), tools: ['blocks'] } }] },
      [
        { toolCalls: [{ id: 'c1', name: 'blocks', arguments: { count: 150_000, type: 'image' } }] },
        { text: 'ok' },
      ],
    );
    agents.push(test);
    const session = test.agent.createSession();
    const updates = await collect(test.agent, 'go', { session });
    const called = updates.find((u) => u.type === 'tool-called') as unknown as {
      result: { ok: boolean; data: { content: { type: string; text?: string }[] } };
    };
    expect(called.result).toMatchObject({
      ok: true,
      data: { truncated: true, totalBlocks: 150_000, maxResultBytes: CAP },
    });
    const parts = called.result.data.content;
    expect(parts).toHaveLength(MAX_RESULT_BLOCKS + 1);
    expect(parts.at(-1)?.text).toBe(
      `[149744 of 150000 content blocks left out: a result keeps at most ${MAX_RESULT_BLOCKS} within maxResultBytes (${CAP})]`,
    );
    expect(size(called.result)).toBeLessThanOrEqual(CAP + SLACK);
    expect(JSON.stringify(test.client.calls[1]!.messages).length).toBeLessThan(CAP + 10_000);
    expect(JSON.stringify(session.toJSON()).length).toBeLessThan(CAP + 20_000);
  });

  it('350,000 empty text blocks, and 200,000 one-byte ones, stay within the cap', async () => {
    const test = await buildTestAgent({
      tools: [{ kind: 'mcp', name: 'srv', config: { ...stdioTestServer(), tools: ['blocks'] } }],
    });
    agents.push(test);
    const blocks = toolNamed(test.agent.tools, 'blocks');
    const empty = await blocks.execute({ count: 350_000, type: 'text' }, context());
    expect(empty).toMatchObject({ ok: true, data: { truncated: true, totalBlocks: 350_000 } });
    expect(size(empty)).toBeLessThanOrEqual(CAP + SLACK);
    const one = await blocks.execute({ count: 200_000, type: 'text', fill: 'b' }, context());
    expect(one).toMatchObject({ ok: true, data: { truncated: true, totalBlocks: 200_000 } });
    expect(size(one)).toBeLessThanOrEqual(CAP + SLACK);
    expect((one as unknown as { data: { text: string } }).data.text.length).toBeLessThanOrEqual(CAP);
    // Within both limits: untouched.
    expect(await blocks.execute({ count: 3, type: 'text', fill: 'b' }, context())).toEqual({
      ok: true,
      data: 'b\nb\nb',
    });
  });

  it('read_mcp_resource and get_mcp_prompt: 100,000 empty entries / messages stay within the cap', async () => {
    const test = await buildTestAgent({
      contexts: [
        {
          kind: 'mcp',
          name: 'srv',
          config: { ...stdioTestServer({ TEST_SERVER_MANY_ENTRIES: '100000' }), tools: [] },
        },
      ],
    });
    agents.push(test);
    const provider = test.agent.contextProviders.find((p) => p.kind === 'mcp')!;
    const offered = await provider.onInvoking!({
      agentName: 'x',
      session: test.agent.createSession(),
      messages: [],
      input: [],
      signal: new AbortController().signal,
    });
    const resource = await toolNamed(offered.tools!, 'read_mcp_resource').execute(
      { uri: 'test://many' },
      context(),
    );
    expect(resource).toMatchObject({ ok: true, data: { truncated: true, totalBlocks: 100_000 } });
    expect((resource as unknown as { data: { contents: unknown[] } }).data.contents).toHaveLength(
      MAX_RESULT_BLOCKS + 1,
    );
    expect(size(resource)).toBeLessThanOrEqual(CAP + SLACK);
    const prompt = await toolNamed(offered.tools!, 'get_mcp_prompt').execute({ name: 'many' }, context());
    expect(prompt).toMatchObject({
      ok: true,
      data: {
        truncated: true,
        totalBlocks: 100_000,
        note: expect.stringMatching(/^\[99744 of 100000 messages left out/),
      },
    });
    expect((prompt as unknown as { data: { messages: unknown[] } }).data.messages).toHaveLength(
      MAX_RESULT_BLOCKS,
    );
    expect(size(prompt)).toBeLessThanOrEqual(CAP + SLACK);
  });

  it('escapes count: text of control characters, quotes and long mime types stays within the cap', () => {
    const max = 4096;
    const control = toToolResult({ content: [{ type: 'text', text: '\u0001'.repeat(50_000) }] }, 't', max);
    expect(control).toMatchObject({ ok: true, data: { truncated: true, totalBytes: 50_000 } });
    expect(size(control)).toBeLessThanOrEqual(max + SLACK);
    const mime = 'x'.repeat(2000);
    const images = toToolResult(
      { content: Array.from({ length: 50 }, () => ({ type: 'image' as const, mimeType: mime, data: '' })) },
      't',
      max,
    );
    expect(size(images)).toBeLessThanOrEqual(max + SLACK);
    // An error's text is not repeated in its parts.
    const failed = toToolResult(
      {
        isError: true,
        content: [
          { type: 'text', text: 'y'.repeat(3000) },
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        ],
      },
      't',
      max,
    );
    expect(size(failed)).toBeLessThanOrEqual(max + SLACK);
    expect(resourceContents({ contents: [{ uri: 'u'.repeat(5000), text: 'a' }] }, max)).toMatchObject({
      truncated: true,
    });
    expect(
      size(
        resourceContents(
          { contents: Array.from({ length: 20 }, () => ({ uri: 'u'.repeat(500), text: '' })) },
          max,
        ),
      ),
    ).toBeLessThanOrEqual(max + SLACK);
  });

  it('a binary part too big is left out with a note in its place; the caption after it stays', () => {
    const { result, truncation } = capCallResult(
      {
        content: [
          { type: 'image', mimeType: 'image/png', data: 'A'.repeat(10_000) },
          { type: 'text', text: 'caption' },
        ],
      },
      2048,
    );
    expect(truncation).toEqual({ truncated: true, totalBytes: 10_007, maxResultBytes: 2048, totalBlocks: 2 });
    expect(result.content).toEqual([
      {
        type: 'text',
        text: '[image/png image of 10000 bytes left out: the result is over maxResultBytes (2048)]',
      },
      { type: 'text', text: 'caption' },
    ]);
  });

  it('cutJsonText counts escapes and never splits a surrogate pair', () => {
    expect(cutJsonText('"""', 4)).toBe('""');
    expect(cutJsonText('a😀', 4)).toBe('a');
    expect(cutJsonText('a😀', 5)).toBe('a😀');
    expect(cutJsonText('\u0001\u0001', 11)).toBe('\u0001');
  });
});
