import { readFile } from 'node:fs/promises';
import { defineTool, SessionError, toolSuccess } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';
import { AgentSession } from '../sessions/agent-session.js';
import { drain, type Harness, startHarness } from '../test-support/harness.js';
import {
  defineStateSlot,
  newRunState,
  parseRunState,
  pausedRunState,
  type RunState,
  readSlot,
  writeSlot,
} from './run-state.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const counter = defineStateSlot('test.counter', z.object({ count: z.number().int() }));

describe('RunState', () => {
  it('is plain JSON that parses back to the same state', () => {
    const state: RunState = newRunState([{ role: 'user', content: 'hi' }]);
    state.round = 2;
    state.pending = {
      toolCalls: [{ id: 'c1', name: 'deploy', arguments: '{}' }],
      gatedCallIds: ['c1'],
      round: 2,
    };
    state.usage = { promptTokens: 3, completionTokens: 4, totalTokens: 7 };
    writeSlot(state, counter, { count: 1 });
    const back = parseRunState(JSON.parse(JSON.stringify(state)));
    expect(back).toEqual(state);
    expect(readSlot(back, counter)).toEqual({ count: 1 });
  });

  it('refuses another version or a malformed field, naming the path', () => {
    const state = JSON.parse(JSON.stringify(newRunState([])));
    expect(() => parseRunState({ ...state, version: 2 }, 'worker message')).toThrow(
      /worker message is not a valid run state: version/,
    );
    expect(() => parseRunState({ ...state, round: -1 })).toThrow(SessionError);
    expect(() =>
      parseRunState({ ...state, pending: { toolCalls: [], gatedCallIds: 'c1', round: 0 } }),
    ).toThrow(/pending\.gatedCallIds/);
  });

  it('reads each slot through its own schema: a value edited by hand is refused with its key', () => {
    const state = newRunState([]);
    expect(readSlot(state, counter)).toBeUndefined();
    state.slots['test.counter'] = { count: 'many' };
    expect(() => readSlot(state, counter)).toThrow(/state slot 'test.counter' holds an invalid value: count/);
    expect(() => writeSlot(state, counter, { count: 1.5 })).toThrow(/refused a value/);
    writeSlot(state, counter, undefined);
    expect(state.slots).toEqual({});
  });
});

describe('a session file written before the runner', () => {
  // Written by the code before `RunState` (approval-process.ts `start`): the on-disk format stays.
  const fixture = new URL('./fixtures/paused-session-v1.json', import.meta.url);

  it('loads as the run it is paused in', async () => {
    const session = AgentSession.fromJSON(JSON.parse(await readFile(fixture, 'utf8')), 'the fixture');
    const state = pausedRunState(session.toJSON());
    expect(state.round).toBe(0);
    expect(state.pending?.gatedCallIds).toEqual(['call_d']);
    expect(state.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(parseRunState(JSON.parse(JSON.stringify(state)))).toEqual(state);
  });

  it('resumes to the end when approved', async () => {
    harness = await startHarness([{ text: 'Deployed to prod.' }]);
    const deploy = defineTool({
      name: 'deploy',
      description: 'Deploy to an environment',
      parameters: z.object({ env: z.string() }),
      requiresApproval: true,
      execute: ({ env }) => toolSuccess({ deployed: env }),
    });
    const agent = new AgentBuilder('deployer').chatClient(harness.client).withTool(deploy).build();
    const session = AgentSession.fromJSON(JSON.parse(await readFile(fixture, 'utf8')));
    const updates = await drain(
      agent.run(undefined, { session, approvals: [{ callId: 'call_d', approved: true }] }),
    );
    expect(updates.find((u) => u.type === 'tool-called')).toMatchObject({
      result: { ok: true, data: { deployed: 'prod' } },
    });
    expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    expect(session.pendingApproval).toBeUndefined();
    expect(session.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });
});
