import { describe, expect, it } from 'vitest';
import { assistantMessage, toolMessage, userMessage } from '../messages/chat-message.js';
import { foldJournal } from './journal.js';
import type { SessionSnapshot } from './session.js';

const empty: SessionSnapshot = {
  version: 1,
  id: 's',
  messages: [],
  state: {},
  metadata: {},
  createdAt: '2026-12-01T00:00:00.000Z',
  updatedAt: '2026-12-01T00:00:00.000Z',
};

describe('foldJournal', () => {
  it('appends messages, tracks calls in flight until their result, sets state and the pending batch', () => {
    const call = { id: 'c1', name: 'write_file', arguments: '{}' };
    const folded = foldJournal(empty, [
      { type: 'messages', messages: [userMessage('hi'), assistantMessage('', [call])] },
      { type: 'calls-started', callIds: ['c1', 'c2'] },
      { type: 'messages', messages: [toolMessage('{"ok":true}', 'c1')] },
      { type: 'state', key: 'provider_state::x', value: { n: 1 } },
      { type: 'pending', pendingApproval: { toolCalls: [call], gatedCallIds: ['c1'], round: 1 } },
    ]);
    expect(folded.messages).toHaveLength(3);
    expect(folded.inFlight).toEqual(['c2']);
    expect(folded.state).toEqual({ 'provider_state::x': { n: 1 } });
    expect(folded.pendingApproval?.gatedCallIds).toEqual(['c1']);
    expect(empty.messages).toHaveLength(0);

    const cleared = foldJournal(folded, [
      { type: 'messages', messages: [toolMessage('{"ok":true}', 'c2')] },
      { type: 'state', key: 'provider_state::x', value: null },
      { type: 'pending', pendingApproval: null },
    ]);
    expect(cleared.inFlight).toBeUndefined();
    expect(cleared.state).toEqual({});
    expect(cleared.pendingApproval).toBeUndefined();
  });
});
