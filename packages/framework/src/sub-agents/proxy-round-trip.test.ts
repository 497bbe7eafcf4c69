import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAICompatibleChatClient } from '@raf/client';
import type { MockModelServer } from '@raf/client/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentBuilder } from '../agent/agent-builder.js';
import { AgentSession } from '../sessions/agent-session.js';
import { drain } from '../test-support/harness.js';
import { startAgentsServer, testSpec } from '../test-support/sub-agent-factory.js';
import { WorkerProcess } from './worker-process.js';

// Workers run from source under tsx here: a cold start takes seconds on a loaded machine.
const SLOW = 90_000;

let dir: string | undefined;
let server: MockModelServer | undefined;
const realStart = WorkerProcess.start;
afterEach(async () => {
  WorkerProcess.start = realStart;
  await server?.close();
  server = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Every message between the parent and its workers, as `<direction> <type> <callId>`. */
function observeWorkers(): string[] {
  const seen: string[] = [];
  const describe = (m: unknown) => {
    const { type, callId, answer } = m as { type?: string; callId?: string; answer?: object };
    return [type, callId ?? (answer ? Object.keys(answer)[0] : undefined)].filter(Boolean).join(' ');
  };
  WorkerProcess.start = (preload) => {
    const worker = realStart.call(WorkerProcess, preload);
    worker.child.on('message', (m: unknown) => seen.push(`worker→ ${describe(m)}`));
    const send = worker.send.bind(worker);
    worker.send = (m) => {
      seen.push(`→worker ${describe(m)}`);
      send(m);
    };
    return worker;
  };
  return seen;
}

describe('a proxied call', () => {
  it(
    'is one round trip: a result, or the approval it needs (and after approval, one more)',
    async () => {
      dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-round-trip-')));
      const root = join(dir, 'project');
      await mkdir(root);
      await writeFile(join(root, 'notes.md'), 'notes\n');
      server = await startAgentsServer({
        root: [
          {
            toolCalls: [
              { id: 'd1', name: 'delegate_task', arguments: { agent: 'researcher', task: 'write' } },
            ],
          },
          { text: 'Root finished.' },
        ],
        researcher: [
          { toolCalls: [{ id: 'w0', name: 'write_file', arguments: { path: 'inside.md', content: 'in' } }] },
          {
            toolCalls: [
              { id: 'w1', name: 'write_file', arguments: { path: '../shared.txt', content: 'hi' } },
            ],
          },
          { text: 'Wrote both.' },
        ],
      });
      const seen = observeWorkers();
      const client = new OpenAICompatibleChatClient({
        model: 'root',
        baseURL: server.baseURL,
        maxRetries: 0,
      });
      const spec = testSpec({ name: 'researcher', baseURL: server.baseURL, root, tools: ['write_file'] });
      const agent = new AgentBuilder('root')
        .chatClient(client)
        .withSubAgents([spec], { warmWorkers: 0 })
        .build();
      const session = agent.createSession('s1');
      const paused = await drain(agent.run('go', { session }));
      expect(paused.at(-1)).toEqual({ type: 'finish', reason: 'awaitingApproval' });
      const restored = AgentSession.fromJSON(JSON.parse(JSON.stringify(session.toJSON())));
      const resumed = await drain(
        agent.run(undefined, { session: restored, approvals: [{ callId: 'd1/w1', approved: true }] }),
      );
      expect(resumed.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
      expect(await readFile(join(root, 'inside.md'), 'utf8')).toBe('in');
      expect(await readFile(join(dir, 'shared.txt'), 'utf8')).toBe('hi');
      const proxied = seen.filter((m) => / tool-/.test(m));
      expect(proxied).toEqual([
        // The first delegation: an ungated write, then a gated one that pauses the worker.
        'worker→ tool-call w0',
        '→worker tool-answer result',
        'worker→ tool-call w1',
        '→worker tool-answer approval',
        // The resumed delegation (a new worker): the approved call runs.
        'worker→ tool-call w1',
        '→worker tool-answer result',
      ]);
    },
    SLOW,
  );
});
