import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAICompatibleChatClient } from '@raf/client';
import { type MockModelServer, type RecordedRequest, startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentBuilder } from '../agent/agent-builder.js';
import { AgentSession } from '../sessions/agent-session.js';
import { drain } from '../test-support/harness.js';
import { parseEntries } from './entries.js';
import { memoryNotice } from './memory-notice.js';
import { SuperBrainContextProvider } from './super-brain-provider.js';
import { validateBundle } from './validate-bundle.js';

let dir: string;
let server: MockModelServer | undefined;
let client: OpenAICompatibleChatClient | undefined;
beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'raf-brain-')), 'logs', 'super-brain');
});
afterEach(async () => {
  await client?.close();
  await server?.close();
  server = undefined;
  client = undefined;
  await rm(join(dir, '..', '..'), { recursive: true, force: true });
});

type Message = { role: string; content: string };
const messagesOf = (r: RecordedRequest) => (r.body?.messages ?? []) as Message[];
const isCurator = (r: RecordedRequest) => messagesOf(r)[0]?.content.includes('# Memory curator') ?? false;

/** The main agent answers; the curator writes one page per job, then reports. */
function model(options: { curatorDelayMs?: number } = {}) {
  let jobs = 0;
  return (request: RecordedRequest) => {
    const messages = messagesOf(request);
    const last = messages.at(-1);
    if (isCurator(request)) {
      if (last?.role === 'user') {
        jobs++;
        const content = `---\ntype: knowledge\ntitle: Batch ${jobs}\n---\n\n# Batch ${jobs}\n\n${last.content.match(/User: [^\n]*/g)?.join('\n') ?? ''}\n`;
        return {
          ...(options.curatorDelayMs && { delayMs: options.curatorDelayMs }),
          toolCalls: [
            {
              name: 'write_file',
              arguments: { path: `assets/conversation/batches/batch-${jobs}.md`, content },
            },
          ],
        };
      }
      return { text: `UPDATED:\n- assets/conversation/batches/batch-${jobs}.md: added` };
    }
    if (last?.role === 'user' && last.content === 'remember my name')
      return {
        toolCalls: [
          { name: 'memory_save', arguments: { topic: 'user', content: 'The user is called Ada.' } },
        ],
      };
    return { text: `answer to: ${last?.role === 'user' ? last.content : 'tool'}` };
  };
}

async function agentOn(
  turns: ReturnType<typeof model>,
  options: Partial<ConstructorParameters<typeof SuperBrainContextProvider>[0]> = {},
) {
  server = await startMockModelServer({ turns });
  client = new OpenAICompatibleChatClient({ model: 'mock', baseURL: server.baseURL, maxRetries: 0 });
  const provider = new SuperBrainContextProvider({
    directory: dir,
    chatClient: client,
    consolidationInterval: 3,
    ...options,
  });
  const agent = new AgentBuilder('assistant').chatClient(client).withContextProvider(provider).build();
  return { agent, provider };
}

describe('SuperBrainContextProvider', () => {
  it('before each run: the notice and load_skill, read_skill_resource, memory_save, memory_recall', async () => {
    const { agent } = await agentOn(model());
    const updates = await drain(agent.run('hello'));
    expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    const request = server!.requests[0]!;
    expect(messagesOf(request)[0]?.content).toContain(memoryNotice('en'));
    expect(
      ((request.body?.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name),
    ).toEqual(['load_skill', 'read_skill_resource', 'memory_save', 'memory_recall']);
    expect(await validateBundle(dir)).toMatchObject({ ok: true });
  });

  it('the notice speaks zh-CN when asked', async () => {
    expect(memoryNotice('zh-CN')).toContain('load_skill("super-brain")');
    expect(memoryNotice('zh-CN')).toContain('持久记忆');
    const { agent } = await agentOn(model(), { language: 'zh-CN' });
    await drain(agent.run('你好'));
    expect(messagesOf(server!.requests[0]!)[0]?.content).toContain(memoryNotice('zh-CN'));
  });

  it('load_skill returns the bundle guide; read_skill_resource reads a page, never outside the bundle', async () => {
    const { provider } = await agentOn(model());
    await provider.onInvoking();
    const [load, read] = provider.tools;
    const signal = new AbortController().signal;
    const loaded = await load!.execute({ skill_name: 'super-brain' }, { signal, callId: 'a' });
    expect(loaded).toMatchObject({
      ok: true,
      data: {
        skill_name: 'super-brain',
        resources: expect.arrayContaining(['references/USER.md', 'assets/INDEX.md']),
      },
    });
    expect(JSON.stringify(loaded.data)).toContain('Finding your way in memory');
    expect(
      await read!.execute(
        { skill_name: 'super-brain', resource_path: 'references/USER.md' },
        { signal, callId: 'b' },
      ),
    ).toMatchObject({ ok: true, data: { content: expect.stringContaining('type: user') } });
    expect(
      await read!.execute(
        { skill_name: 'super-brain', resource_path: '../../../etc/passwd' },
        { signal, callId: 'c' },
      ),
    ).toMatchObject({ ok: false, error: expect.stringContaining('outside skill') });
  });

  it('a 12-turn conversation with interval 3 sends 4 consolidation jobs to the curator, which writes pages; the bundle validates', async () => {
    const { agent, provider } = await agentOn(model());
    const session = new AgentSession('conversation-1');
    for (let turn = 1; turn <= 12; turn++) {
      const input = turn === 5 ? 'remember my name' : `turn ${turn}`;
      const updates = await drain(agent.run(input, { session }));
      expect(updates.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
      await provider.whenIdle();
    }
    const curator = server!.requests.filter(isCurator);
    const jobs = curator.filter((r) => messagesOf(r).at(-1)?.role === 'user');
    expect(jobs).toHaveLength(4);
    // Each job gets the transcript since the previous one, and the bundle's projection.
    expect(messagesOf(jobs[1]!).at(-1)?.content).toContain('User: turn 4');
    expect(messagesOf(jobs[1]!).at(-1)?.content).not.toContain('User: turn 3');
    expect(messagesOf(jobs[1]!).at(-1)?.content).toContain('Assistant called memory_save');
    expect(messagesOf(jobs[1]!).at(-1)?.content).toContain(
      '- assets/conversation/batches/batch-1.md (knowledge) — Batch 1',
    );
    expect(provider.stats).toEqual({ completed: 4, failed: 0, queued: 0, coalesced: 0 });
    expect(session.getProviderState('SuperBrainContextProvider')).toEqual({
      runs: 0,
      consolidated: session.messages.length,
    });

    for (let n = 1; n <= 4; n++)
      expect(await readFile(join(dir, `assets/conversation/batches/batch-${n}.md`), 'utf8')).toContain(
        `User: turn ${3 * n}`,
      );
    const log = await readFile(join(dir, 'log.md'), 'utf8');
    expect(
      log.match(/\| conversation-1 \| updated: assets\/conversation\/batches\/batch-\d\.md/g),
    ).toHaveLength(4);
    expect(parseEntries(await readFile(join(dir, 'references/USER.md'), 'utf8')).length).toBe(1);
    expect(await validateBundle(dir)).toMatchObject({ ok: true, issues: [] });
  });

  it('jobs queued while the curator works coalesce: the newest replaces the pending one and carries its transcript', async () => {
    const { agent, provider } = await agentOn(model({ curatorDelayMs: 400 }), { consolidationInterval: 1 });
    const session = new AgentSession('s');
    for (let turn = 1; turn <= 4; turn++) await drain(agent.run(`turn ${turn}`, { session }));
    expect(provider.consolidating).toBe(true);
    await provider.whenIdle();
    expect(provider.stats).toEqual({ completed: 2, failed: 0, queued: 0, coalesced: 2 });
    const jobs = server!.requests.filter(isCurator).filter((r) => messagesOf(r).at(-1)?.role === 'user');
    expect(jobs).toHaveLength(2);
    const second = messagesOf(jobs[1]!).at(-1)?.content ?? '';
    expect(['turn 2', 'turn 3', 'turn 4'].every((t) => second.includes(`User: ${t}`))).toBe(true);
  });

  it('a failing curator counts as failed, is logged, and leaves the bundle valid', async () => {
    server = await startMockModelServer({
      turns: (request) => (isCurator(request) ? { status: 500 } : { text: 'fine' }),
    });
    client = new OpenAICompatibleChatClient({ model: 'mock', baseURL: server.baseURL, maxRetries: 0 });
    const provider = new SuperBrainContextProvider({
      directory: dir,
      chatClient: client,
      consolidationInterval: 1,
    });
    const agent = new AgentBuilder('a').chatClient(client).withContextProvider(provider).build();
    await drain(agent.run('hi', { session: new AgentSession('s') }));
    await provider.whenIdle();
    expect(provider.stats).toMatchObject({ completed: 0, failed: 1 });
    expect(await readFile(join(dir, 'log.md'), 'utf8')).toMatch(/\| s \| error: /);
    expect(await validateBundle(dir)).toMatchObject({ ok: true });
  });

  it('a SKILL.md the user broke is a warning: the notice and the tools stay', async () => {
    const { provider } = await agentOn(model());
    await provider.onInvoking();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, 'SKILL.md'), 'no frontmatter any more\n');
    const result = await provider.onInvoking();
    expect(result.warnings).toEqual([expect.stringContaining('SKILL.md must start with YAML frontmatter')]);
    expect(result.tools?.map((t) => t.name)).toEqual([
      'load_skill',
      'read_skill_resource',
      'memory_save',
      'memory_recall',
    ]);
    expect(result.instructions).toBe(memoryNotice('en'));
  });

  it('interval 0 never consolidates; enabled: false adds nothing', async () => {
    const { agent, provider } = await agentOn(model(), { consolidationInterval: 0 });
    const session = new AgentSession('s');
    for (let i = 0; i < 4; i++) await drain(agent.run(`t${i}`, { session }));
    expect(provider.stats).toEqual({ completed: 0, failed: 0, queued: 0, coalesced: 0 });
    const off = new SuperBrainContextProvider({ directory: dir, enabled: false });
    expect(off.tools).toEqual([]);
    expect(await off.onInvoking()).toEqual({});
    expect(off.injectsTools).toBe(false);
  });
});
