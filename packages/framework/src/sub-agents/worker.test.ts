import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OpenAICompatibleChatClient } from '@raf/client';
import type { MockModelServer } from '@raf/client/testing';
import type { AgentResponseUpdate, ToolApprovalRequestUpdate } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentBuilder } from '../agent/agent-builder.js';
import { ToolGovernance } from '../runtime-policy/tool-governance.js';
import { AgentSession } from '../sessions/agent-session.js';
import { drain } from '../test-support/harness.js';
import { startAgentsServer, type TestSubAgentOptions, testSpec } from '../test-support/sub-agent-factory.js';
import type { SubAgentSpec } from './sub-agent.js';
import { createSubAgentRunner } from './sub-agent-runner.js';

// Workers run from source under tsx here: a cold start takes seconds on a loaded machine.
const SLOW = 60_000;

/** Live child processes of this process (from /proc). */
function childPids(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(fields[1]) === process.pid && fields[0] !== 'Z' ? [Number(pid)] : [];
      } catch {
        return [];
      }
    });
}

let dir: string;
let root: string;
let server: (MockModelServer & { byModel(model: string): Record<string, unknown>[] }) | undefined;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-workers-')));
  root = join(dir, 'project');
  await mkdir(root);
  await writeFile(join(root, 'notes.md'), 'three notes\n');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

function coordinator(specs: SubAgentSpec[], extra: (b: AgentBuilder) => AgentBuilder = (b) => b) {
  const client = new OpenAICompatibleChatClient({ model: 'root', baseURL: server!.baseURL, maxRetries: 0 });
  return extra(new AgentBuilder('root').chatClient(client)).withSubAgents(specs, { warmWorkers: 0 }).build();
}

const researcher = (over: Partial<TestSubAgentOptions> = {}): TestSubAgentOptions => ({
  name: 'researcher',
  baseURL: server!.baseURL,
  root,
  tools: ['read_file', 'write_file'],
  ...over,
});

const delegate = (id: string, agent: string, task: string) => ({
  id,
  name: 'delegate_task',
  arguments: { agent, task },
});

const called = (updates: AgentResponseUpdate[]) =>
  updates.filter((u) => u.type === 'tool-called').map((u) => (u.type === 'tool-called' ? u.result : null));

const toolNames = (body: Record<string, unknown> | undefined) =>
  ((body?.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

const lastMessage = (body: Record<string, unknown> | undefined) =>
  ((body?.messages ?? []) as { role: string; content: string }[]).at(-1);

describe('sub-agents in worker processes', () => {
  it(
    'a worker ends when its parent dies (the IPC channel closes)',
    async () => {
      const script = fileURLToPath(new URL('../test-support/worker-parent-process.ts', import.meta.url));
      const parent = spawn(process.execPath, ['--conditions=@raf/source', '--import', 'tsx', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const pid = Number(
        await new Promise<string>((resolve) => parent.stdout.once('data', (d) => resolve(String(d)))),
      );
      expect(existsSync(`/proc/${pid}`)).toBe(true);
      parent.kill('SIGKILL');
      const deadline = Date.now() + 10_000;
      const alive = () =>
        existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
      while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(alive()).toBe(false);
    },
    SLOW,
  );

  it(
    'runs worker-local tools in the worker and proxied ones in the parent; the root reads the answer',
    async () => {
      server = await startAgentsServer({
        root: [{ toolCalls: [delegate('d1', 'researcher', 'summarise notes.md')] }, { text: 'All done.' }],
        researcher: [
          { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'notes.md' } }] },
          {
            toolCalls: [
              { id: 'w1', name: 'write_file', arguments: { path: 'summary.md', content: '3 notes' } },
            ],
          },
          { text: 'Wrote summary.md: 3 notes.' },
        ],
      });
      const agent = coordinator([testSpec(researcher())]);
      const updates = await drain(agent.run('go'));
      expect(called(updates)).toEqual([
        { ok: true, data: { agent: 'researcher', answer: 'Wrote summary.md: 3 notes.' } },
      ]);
      expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
      expect(await readFile(join(root, 'summary.md'), 'utf8')).toBe('3 notes');
      const worker = server.byModel('researcher');
      expect(toolNames(worker[0])).toEqual(['read_file', 'write_file']);
      expect(lastMessage(worker[1])?.content).toContain('three notes');
      expect(toolNames(server.byModel('root')[0])).toEqual(['delegate_task', 'delegate_parallel']);
      expect(childPids()).toEqual([]);
    },
    SLOW,
  );

  it(
    'refuses a proxied write outside the workspace (deny) and a shell command the policy does not allow',
    async () => {
      server = await startAgentsServer({
        root: [{ toolCalls: [delegate('d1', 'researcher', 'try')] }, { text: 'ok' }],
        researcher: [
          {
            toolCalls: [
              { id: 'w1', name: 'write_file', arguments: { path: '../outside.txt', content: 'x' } },
              { id: 'c1', name: 'run_command', arguments: { command: 'touch ../shell.txt' } },
            ],
          },
          { text: 'could not' },
        ],
      });
      const agent = coordinator(
        [testSpec(researcher({ policy: 'DenyOutside', tools: ['read_file', 'write_file', 'run_command'] }))],
        // The parent may not run a shell: neither may its sub-agents.
        (b) => b.withToolGovernance(new ToolGovernance(), { disabled: ['bash'] }),
      );
      await drain(agent.run('go'));
      const [first, second] = server.byModel('researcher');
      expect(toolNames(first)).toEqual(['read_file', 'write_file']);
      const results = ((second?.messages ?? []) as { role: string; content: string }[]).filter(
        (m) => m.role === 'tool',
      );
      expect(results.map((m) => JSON.parse(m.content))).toEqual([
        { ok: false, error: expect.stringMatching(/^Access denied: .*outside workspace 'project'/) },
        { ok: false, error: "Tool 'run_command' not found" },
      ]);
      expect(existsSync(join(dir, 'outside.txt'))).toBe(false);
      expect(existsSync(join(dir, 'shell.txt'))).toBe(false);
    },
    SLOW,
  );

  it(
    'an approval inside a sub-agent pauses the root; after a restart, approving lands the write and the root finishes',
    async () => {
      server = await startAgentsServer({
        root: [{ toolCalls: [delegate('d1', 'researcher', 'write outside')] }, { text: 'Root finished.' }],
        researcher: [
          {
            toolCalls: [
              { id: 'w1', name: 'write_file', arguments: { path: '../shared.txt', content: 'hi' } },
            ],
          },
          { text: 'Wrote it.' },
        ],
      });
      const spec = () => testSpec(researcher());
      const first = coordinator([spec()]);
      const session = first.createSession('s1');
      const paused = await drain(first.run('go', { session }));
      const request = paused.find((u) => u.type === 'tool-approval-request') as ToolApprovalRequestUpdate;
      expect(request).toEqual({
        type: 'tool-approval-request',
        callId: 'd1/w1',
        name: 'write_file',
        arguments: { path: '../shared.txt', content: 'hi' },
        description: expect.any(String),
        resolvedTarget: join(dir, 'shared.txt'),
        agentPath: ['researcher'],
      });
      expect(paused.at(-1)).toEqual({ type: 'finish', reason: 'awaitingApproval' });
      expect(childPids()).toEqual([]);
      // A new process: the session from disk, a coordinator built again.
      const saved = JSON.parse(JSON.stringify(session.toJSON()));
      const second = coordinator([spec()]);
      const restored = AgentSession.fromJSON(saved);
      await expect(
        drain(second.run(undefined, { session: restored, approvals: [{ callId: 'w1', approved: true }] })),
      ).rejects.toThrow(/unknown call id w1/);
      const resumed = await drain(
        second.run(undefined, { session: restored, approvals: [{ callId: 'd1/w1', approved: true }] }),
      );
      expect(called(resumed)).toEqual([{ ok: true, data: { agent: 'researcher', answer: 'Wrote it.' } }]);
      expect(resumed.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
      expect(await readFile(join(dir, 'shared.txt'), 'utf8')).toBe('hi');
      expect(restored.pendingApproval).toBeUndefined();
      expect(childPids()).toEqual([]);
    },
    SLOW,
  );

  it(
    'a denial reaches the sub-agent model as the rejection',
    async () => {
      server = await startAgentsServer({
        root: [{ toolCalls: [delegate('d1', 'researcher', 'write outside')] }, { text: 'ok' }],
        researcher: [
          {
            toolCalls: [
              { id: 'w1', name: 'write_file', arguments: { path: '../shared.txt', content: 'hi' } },
            ],
          },
          { text: 'It was refused.' },
        ],
      });
      const agent = coordinator([testSpec(researcher())]);
      const session = agent.createSession();
      await drain(agent.run('go', { session }));
      const resumed = await drain(
        agent.run(undefined, {
          session,
          approvals: [{ callId: 'd1/w1', approved: false, reason: 'not there' }],
        }),
      );
      expect(lastMessage(server.byModel('researcher')[1])).toMatchObject({
        role: 'tool',
        content: JSON.stringify({ ok: false, error: 'Rejected: not there' }),
      });
      expect(called(resumed)).toEqual([
        { ok: true, data: { agent: 'researcher', answer: 'It was refused.' } },
      ]);
      expect(existsSync(join(dir, 'shared.txt'))).toBe(false);
    },
    SLOW,
  );

  it(
    'a worker killed mid-task (SIGKILL) is an error result the root reads; the session is intact',
    async () => {
      server = await startAgentsServer({
        root: [{ toolCalls: [delegate('d1', 'researcher', 'hang')] }, { text: 'Carried on.' }],
        researcher: [{ stallAfterChunks: 0 }],
      });
      const agent = coordinator([testSpec(researcher())]);
      const session = agent.createSession();
      const running = drain(agent.run('go', { session }));
      // Kill the worker once its model request is in flight.
      while (server.byModel('researcher').length === 0) await new Promise((r) => setTimeout(r, 20));
      const [pid] = childPids();
      process.kill(pid!, 'SIGKILL');
      const updates = await running;
      expect(called(updates)).toEqual([
        {
          ok: false,
          error: 'Sub-agent researcher failed: its worker exited before answering (signal SIGKILL)',
        },
      ]);
      expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
      expect(session.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(childPids()).toEqual([]);
    },
    SLOW,
  );

  it(
    'a worker past its timeoutSecs, one that crashes at start, and one that sends a malformed message',
    async () => {
      server = await startAgentsServer({
        root: [
          {
            toolCalls: [
              delegate('d1', 'slow', 'hang'),
              delegate('d2', 'crash', 'x'),
              delegate('d3', 'garbled', 'x'),
            ],
          },
          { text: 'ok' },
        ],
        slow: [{ stallAfterChunks: 0 }],
      });
      const agent = coordinator([
        testSpec(researcher({ name: 'slow' }), { timeoutSecs: 1 }),
        testSpec(researcher({ name: 'crash', crash: true })),
        testSpec(researcher({ name: 'garbled', malformed: true })),
      ]);
      const updates = await drain(agent.run('go'));
      expect(called(updates)).toEqual([
        { ok: false, error: 'Sub-agent slow failed: timed out after 1 s; its worker was stopped' },
        { ok: false, error: 'Sub-agent crash failed: its worker exited before answering (exit code 7)' },
        {
          ok: false,
          error: expect.stringMatching(/^Sub-agent garbled failed: its worker sent a malformed message: /),
        },
      ]);
      expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
      expect(childPids()).toEqual([]);
    },
    SLOW,
  );

  it(
    'cancelling the root run stops its workers',
    async () => {
      server = await startAgentsServer({
        root: [{ toolCalls: [delegate('d1', 'researcher', 'hang')] }],
        researcher: [{ stallAfterChunks: 0 }],
      });
      const agent = coordinator([testSpec(researcher())]);
      const controller = new AbortController();
      const running = drain(agent.run('go', { signal: controller.signal }));
      while (server.byModel('researcher').length === 0) await new Promise((r) => setTimeout(r, 20));
      expect(childPids()).toHaveLength(1);
      controller.abort();
      expect((await running).at(-1)).toEqual({ type: 'finish', reason: 'cancelled' });
      // The worker is stopped (SIGTERM, then SIGKILL after the grace period).
      const deadline = Date.now() + 5000;
      while (childPids().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(childPids()).toEqual([]);
    },
    SLOW,
  );

  it(
    'delegate_parallel keeps task order with at most maxConcurrency workers; a warm spare is closed with the runner',
    async () => {
      server = await startAgentsServer({
        a: [{ text: 'from a' }],
        b: [{ text: 'from b' }],
      });
      const runner = createSubAgentRunner(
        [testSpec(researcher({ name: 'a' })), testSpec(researcher({ name: 'b' }))],
        { warmWorkers: 1 },
      );
      runner.warm();
      expect(childPids()).toHaveLength(1);
      const client = new OpenAICompatibleChatClient({
        model: 'root',
        baseURL: server.baseURL,
        maxRetries: 0,
      });
      const agent = new AgentBuilder('root')
        .chatClient(client)
        .withSubAgents(runner.subAgents, { runner, maxConcurrency: 1 })
        .build();
      const tools = agent.contextProviders.at(-1)?.onInvoking?.({} as never) as {
        tools: { name: string; execute: Function }[];
      };
      const parallel = tools.tools.find((t) => t.name === 'delegate_parallel')!;
      const result = await parallel.execute(
        {
          tasks: [
            { agent: 'b', task: '1' },
            { agent: 'a', task: '2' },
          ],
        },
        { callId: 'p1', signal: new AbortController().signal },
      );
      expect(result).toEqual({
        ok: true,
        data: {
          results: [
            { agent: 'b', ok: true, answer: 'from b' },
            { agent: 'a', ok: true, answer: 'from a' },
          ],
        },
      });
      await runner.close();
      expect(childPids()).toEqual([]);
    },
    SLOW,
  );
});
