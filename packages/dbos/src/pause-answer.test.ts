import type { ToolApprovalRequestUpdate } from '@raf/core';
import { ConfigError } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { answerPause } from './pause-answer.js';
import type { PausedState } from './run-spec.js';

const call = (callId: string, name = 'run_command'): ToolApprovalRequestUpdate => ({
  type: 'tool-approval-request',
  callId,
  name,
  arguments: {},
  description: '',
});
const question = (nodeId: string, prompt: string) => ({ nodeId, prompt });

describe('answerPause: what an answer to a pause sends', () => {
  it("an agent's pause takes its decisions as a list (the message parked runs already wait for)", () => {
    const paused: PausedState = { state: 'paused', pause: 0, requests: [call('a'), call('b')] };
    const { message, given } = answerPause('r', paused, { answer: { approve: ['b'] }, reason: 'no' });
    expect(message).toEqual([
      { callId: 'a', approved: false, reason: 'no' },
      { callId: 'b', approved: true },
    ]);
    expect(given.answers).toEqual([]);
    expect(() => answerPause('r', paused, { answers: ['x'] })).toThrow(
      'run r waits for approval of run_command, run_command, not an answer: give --all, --none or --call ID',
    );
  });

  it("a workflow's question takes one text per question, by node, in order", () => {
    const paused: PausedState = {
      state: 'paused',
      pause: 2,
      requests: [],
      questions: [question('q1', 'name?'), question('q2', 'age?')],
    };
    expect(answerPause('r', paused, { answers: ['Ada', '36'] }).message).toEqual({
      answers: { q1: 'Ada', q2: '36' },
    });
    expect(() => answerPause('r', paused, { answers: ['Ada'] })).toThrow(
      'run r asks 2 questions ("name?", "age?"): give --answer TEXT 2 times, in that order (got 1)',
    );
    expect(() => answerPause('r', paused, { answer: 'none' })).toThrow(ConfigError);
    expect(() => answerPause('r', paused, {})).toThrow(/give --answer TEXT 2 times/);
  });

  it('a pause with both takes both; a call it does not hold is refused', () => {
    const paused: PausedState = {
      state: 'paused',
      pause: 0,
      requests: [call('c1', 'write_file')],
      questions: [question('q', 'why?')],
    };
    expect(answerPause('r', paused, { answer: 'all', answers: ['because'] }).message).toEqual({
      approvals: [{ callId: 'c1', approved: true }],
      answers: { q: 'because' },
    });
    expect(() => answerPause('r', paused, { answers: ['because'] })).toThrow(
      'run r waits for approval of write_file: give --all, --none or --call ID',
    );
    expect(() => answerPause('r', paused, { answer: { approve: ['c9'] }, answers: ['x'] })).toThrow(
      'run r has no pending call c9 (pending: c1)',
    );
  });

  it('a call named twice (`--call c1 --call c1`, or twice in `responses`) is refused, naming it', () => {
    const paused: PausedState = { state: 'paused', pause: 0, requests: [call('c1'), call('c2')] };
    const twice = () => answerPause('r', paused, { answer: { approve: ['c1', 'c2', 'c1'] } });
    expect(twice).toThrow(ConfigError);
    expect(twice).toThrow('run r: call c1 is named more than once (give each --call ID once)');
    const responses = () =>
      answerPause('r', paused, {
        answer: {
          responses: [
            { callId: 'c2', approved: true },
            { callId: 'c2', approved: false },
          ],
        },
      });
    expect(responses).toThrow(ConfigError);
    expect(responses).toThrow(/call c2 is named more than once/);
    // Named once each, both are answered.
    expect(answerPause('r', paused, { answer: { approve: ['c2', 'c1'] } }).message).toEqual([
      { callId: 'c1', approved: true },
      { callId: 'c2', approved: true },
    ]);
  });
});
