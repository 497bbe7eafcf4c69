import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAICompatibleChatClient } from '@raf/client';
import type { JSONValue } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentBuilder } from '../agent/agent-builder.js';
import { drain } from '../test-support/harness.js';
import { startAgentsServer, testSpec } from '../test-support/sub-agent-factory.js';

const SLOW = 90_000;
let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup) await step();
  cleanup = [];
});

// A compromised worker (its factory module is the attacker's code) sends crafted messages.
const FORGED: Record<string, JSONValue> = {
  noResult: { v: 1, type: 'model-update', update: { type: 'tool-called', callId: 'x', name: 'read_file' } },
  unknownType: { v: 1, type: 'model-update', update: { type: 'exfiltrate', data: 1 } },
  badRequest: { v: 1, type: 'model-update', update: { type: 'tool-approval-request', callId: 7 } },
  notAnObject: 'garbage',
};

describe('a worker that sends crafted messages', () => {
  it(
    'fails that delegation only; the parent process and its other delegations go on',
    async () => {
      const dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-forged-')));
      const root = join(dir, 'project');
      await mkdir(root);
      const names = Object.keys(FORGED);
      const server = await startAgentsServer({
        root: [
          {
            toolCalls: names.map((name, i) => ({
              id: `d${i}`,
              name: 'delegate_task',
              arguments: { agent: name, task: 'x' },
            })),
          },
          { text: 'still here' },
        ],
        ...Object.fromEntries(names.map((name) => [name, [{ text: 'answer' }]])),
      });
      cleanup.push(
        () => server.close(),
        () => rm(dir, { recursive: true, force: true }),
      );
      const client = new OpenAICompatibleChatClient({
        model: 'root',
        baseURL: server.baseURL,
        maxRetries: 0,
      });
      const specs = names.map((name) =>
        testSpec({ name, baseURL: server.baseURL, root, forged: FORGED[name]! }),
      );
      const agent = new AgentBuilder('root')
        .chatClient(client)
        .withSubAgents(specs, { warmWorkers: 0 })
        .build();
      const updates = await drain(agent.run('go'));
      const results = updates.flatMap((u) => (u.type === 'tool-called' ? [u.result] : []));
      expect(results).toHaveLength(names.length);
      for (const [i, result] of results.entries()) {
        expect(result, names[i]).toEqual({
          ok: false,
          error: expect.stringMatching(
            new RegExp(`^Sub-agent ${names[i]} failed: its worker sent a malformed message: `),
          ),
        });
      }
      expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    },
    SLOW,
  );
});
