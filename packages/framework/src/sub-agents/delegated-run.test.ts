import { assistantMessage, type JSONValue, userMessage } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { AgentSession } from '../sessions/agent-session.js';
import { delegatedRunState, delegatedSession, runStateJSON } from './delegated-run.js';
import { pausedDelegation, pausedJSON } from './paused-run.js';

/** A sub-agent session paused on one gated call, as a delegation leaves it. */
function pausedSession(): AgentSession {
  const session = new AgentSession('sub');
  const calls = [{ id: 'w1', name: 'write_file', arguments: '{"path":"a.txt"}' }];
  session.addMessages([userMessage('write it'), assistantMessage('', calls)]);
  session.pendingApproval = { toolCalls: calls, gatedCallIds: ['w1'], round: 2 };
  session.setProviderState('notes', { seen: 3 });
  return session;
}

const request = {
  type: 'tool-approval-request' as const,
  callId: 'w1',
  name: 'write_file',
  arguments: { path: 'a.txt' },
  description: 'd',
};

describe('a delegation carries its sub-agent run as a RunState', () => {
  it('a paused session becomes a RunState and resumes as the same session (history, batch, state)', () => {
    const state = delegatedRunState(pausedSession());
    expect(state).toMatchObject({ version: 1, round: 2, pending: { gatedCallIds: ['w1'] } });
    // Through JSON, as a worker message or the root session on disk carries it.
    const carried = JSON.parse(JSON.stringify(runStateJSON(state))) as JSONValue;
    const saved = pausedDelegation(
      JSON.parse(JSON.stringify(pausedJSON({ agent: 'writer', state, requests: [request] }))) as JSONValue,
      'writer',
    );
    expect(saved.state).toEqual(carried);
    const resumed = delegatedSession(saved.state);
    expect(resumed.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(resumed.pendingApproval).toEqual(pausedSession().pendingApproval);
    expect(resumed.getProviderState('notes')).toEqual({ seen: 3 });
  });

  it('a saved run edited by hand is refused, naming the field', () => {
    const state = runStateJSON(delegatedRunState(pausedSession())) as Record<string, JSONValue>;
    expect(() =>
      pausedDelegation({ agent: 'writer', state: { ...state, round: -1 }, requests: [request] }, 'writer'),
    ).toThrow(/not a valid run state: round/);
    expect(() =>
      pausedDelegation({ agent: 'writer', state: { ...state, version: 9 }, requests: [] }, 'writer'),
    ).toThrow(/not a valid run state/);
  });
});
