import type { JSONValue } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { AgentSession } from '../sessions/agent-session.js';
import { pausedDelegation, savedTask, savedTasks } from './paused-run.js';

// Read back from disk: plain JSON.
const session = JSON.parse(JSON.stringify(new AgentSession('sub').toJSON())) as JSONValue & object;
const request = {
  type: 'tool-approval-request',
  callId: 'w1',
  name: 'write_file',
  arguments: {},
  description: 'd',
};

describe('the saved state of a paused delegation is parsed, never cast', () => {
  it('reads back what a delegation saved', () => {
    expect(
      pausedDelegation({ agent: 'researcher', session, requests: [request] }, 'researcher'),
    ).toMatchObject({
      agent: 'researcher',
      requests: [request],
    });
    const task = { agent: 'a', task: 't', paused: { x: 1 }, requestIds: ['w1'] };
    expect(savedTask(task)).toEqual(task);
    expect(savedTasks({ tasks: [task, { agent: 'b', task: 't', ok: true, answer: 'y' }] })).toHaveLength(2);
    expect(savedTask(undefined)).toBeUndefined();
  });

  it('refuses state edited by hand, naming the field', () => {
    // A session whose messages are not a list (was cast and crashed later in AgentSession).
    expect(() =>
      pausedDelegation(
        { agent: 'researcher', session: { ...session, messages: 'x' }, requests: [] },
        'researcher',
      ),
    ).toThrow(/session\.messages/);
    expect(() => pausedDelegation({ agent: 'other', session, requests: [] }, 'researcher')).toThrow(
      /for other, not researcher/,
    );
    expect(() => savedTask({ agent: 'a', task: 't', paused: {}, requestIds: 'w1' })).toThrow(/delegate_task/);
    expect(() => savedTasks({ tasks: [{ agent: 1 }] })).toThrow(/delegate_parallel.*tasks\.0/);
  });
});
