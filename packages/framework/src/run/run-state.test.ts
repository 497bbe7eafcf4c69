import { readFile } from 'node:fs/promises';
import { OpenAICompatibleChatClient } from '@raf/client';
import {
  defineTool,
  imagePart,
  SessionError,
  type ToolApprovalRequestUpdate,
  textPart,
  toolSuccess,
  userMessage,
} from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';
import { ToolSuspension } from '../pipeline/tool-suspension.js';
import { AgentSession } from '../sessions/agent-session.js';
import { drain, type Harness, sentMessages, startHarness } from '../test-support/harness.js';
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

describe('a paused batch with image parts', () => {
  // 1×1 PNG: the bytes do not matter, only that they come back whole.
  const PNG = Uint8Array.from([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82]);

  it('keeps the user message’s and a tool result’s images through save and load: the resumed model request carries both', async () => {
    harness = await startHarness([
      {
        toolCalls: [
          { id: 'c_look', name: 'look', arguments: {} },
          { id: 'c_deploy', name: 'deploy', arguments: { env: 'prod' } },
        ],
      },
      { text: 'Deployed; the screenshot is red.' },
    ]);
    const client = new OpenAICompatibleChatClient({
      model: 'mock',
      baseURL: harness.server.baseURL,
      maxRetries: 0,
      capabilities: { images: true },
    });
    try {
      const look = defineTool({
        name: 'look',
        description: 'Takes a screenshot',
        parameters: z.object({}),
        execute: () => ({ ok: true, data: 'a screenshot', parts: [imagePart(PNG, 'image/png')] }),
      });
      const deploy = defineTool({
        name: 'deploy',
        description: 'Deploy to an environment',
        parameters: z.object({ env: z.string() }),
        requiresApproval: true,
        execute: ({ env }) => toolSuccess({ deployed: env }),
      });
      const agent = new AgentBuilder('deployer').chatClient(client).withTool(look).withTool(deploy).build();
      const session = new AgentSession('s-img');
      const input = userMessage([
        textPart('Deploy if this looks right'),
        imagePart('https://example.com/mockup.png', 'image/png'),
      ]);
      await drain(agent.run([input], { session }));
      expect(session.pendingApproval?.gatedCallIds).toEqual(['c_deploy']);
      expect(harness.server.requests).toHaveLength(1);

      // Saved while paused (a file, another process), then loaded and resumed.
      const saved = JSON.parse(JSON.stringify(session.toJSON()));
      const loaded = AgentSession.fromJSON(saved, 'the saved session');
      expect(loaded.toJSON().messages).toEqual(session.toJSON().messages);
      expect(loaded.pendingApproval).toEqual(session.pendingApproval);
      const state = pausedRunState(loaded.toJSON());
      expect(parseRunState(JSON.parse(JSON.stringify(state)))).toEqual(state);
      const updates = await drain(
        agent.run(undefined, { session: loaded, approvals: [{ callId: 'c_deploy', approved: true }] }),
      );
      expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'stop' });

      const sent = JSON.stringify(sentMessages(harness.server, 1));
      expect(sent).toContain('https://example.com/mockup.png');
      expect(sent).toContain(`data:image/png;base64,${Buffer.from(PNG).toString('base64')}`);
    } finally {
      await client.close();
    }
  });

  it('keeps a sibling result’s image when the batch pauses on a suspended call (a sub-agent’s approval): the resumed model request carries it', async () => {
    harness = await startHarness([
      {
        toolCalls: [
          { id: 'c_look', name: 'look', arguments: {} },
          { id: 'c_ask', name: 'delegate', arguments: { task: 'deploy' } },
        ],
      },
      { text: 'Done.' },
    ]);
    const client = new OpenAICompatibleChatClient({
      model: 'mock',
      baseURL: harness.server.baseURL,
      maxRetries: 0,
      capabilities: { images: true },
    });
    try {
      const looks: number[] = [];
      const look = defineTool({
        name: 'look',
        description: 'Takes a screenshot',
        parameters: z.object({}),
        execute: () => {
          looks.push(1);
          return { ok: true, data: 'a screenshot', parts: [imagePart(PNG, 'image/png')] };
        },
      });
      // Stands for a sub-agent whose own call waits for a human: the root's batch pauses on it.
      const delegate = defineTool({
        name: 'delegate',
        description: 'Asks a nested agent',
        parameters: z.object({ task: z.string() }),
        execute: ({ task }, ctx) => {
          if (ctx.resume) return toolSuccess({ done: task });
          const request: ToolApprovalRequestUpdate = {
            type: 'tool-approval-request',
            callId: `${ctx.callId}/inner`,
            name: 'deploy',
            arguments: { env: 'prod' },
            description: 'deploy',
            agentPath: ['deployer'],
          };
          throw new ToolSuspension([request], { task });
        },
      });
      const agent = new AgentBuilder('root').chatClient(client).withTools([look, delegate]).build();
      const session = new AgentSession('s-img-2');
      await drain(agent.run('Deploy it', { session }));
      expect(session.pendingApproval?.gatedCallIds).toEqual(['c_ask/inner']);
      expect(session.pendingApproval?.results?.c_look?.parts).toEqual([imagePart(PNG, 'image/png')]);

      const loaded = AgentSession.fromJSON(JSON.parse(JSON.stringify(session.toJSON())), 'the saved session');
      expect(loaded.pendingApproval).toEqual(session.pendingApproval);
      const state = pausedRunState(loaded.toJSON());
      expect(parseRunState(JSON.parse(JSON.stringify(state)))).toEqual(state);
      const updates = await drain(
        agent.run(undefined, { session: loaded, approvals: [{ callId: 'c_ask/inner', approved: true }] }),
      );
      expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
      // The sibling ran once, before the pause; its image reached the model after the resume.
      expect(looks).toEqual([1]);
      expect(JSON.stringify(sentMessages(harness.server, 1))).toContain(
        `data:image/png;base64,${Buffer.from(PNG).toString('base64')}`,
      );
    } finally {
      await client.close();
    }
  });
});
