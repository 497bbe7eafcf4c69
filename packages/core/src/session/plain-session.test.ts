import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/chat-message.js';
import { PlainSession } from './plain-session.js';
import type { SessionSnapshot } from './session.js';

describe('PlainSession', () => {
  it('round-trips through toJSON, and copies what comes in and goes out', () => {
    const session = new PlainSession('s1');
    const message: ChatMessage = { role: 'user', content: 'hi' };
    session.addMessages([message]);
    const state = { count: 1 };
    session.setProviderState('memory', state);
    state.count = 2;
    const snapshot = session.toJSON();
    expect(snapshot).toMatchObject({ version: 1, id: 's1', messages: [{ role: 'user', content: 'hi' }] });
    expect(session.getProviderState('memory')).toEqual({ count: 1 });
    const again = new PlainSession('ignored', snapshot);
    expect(again.id).toBe('s1');
    expect(again.toJSON()).toEqual({ ...snapshot, updatedAt: snapshot.updatedAt });
    (snapshot.messages as ChatMessage[]).push({ role: 'user', content: 'later' });
    expect(again.messages).toHaveLength(1);
  });

  it('takes a snapshot without dates (older or hand-written data) and still serializes', () => {
    const snapshot = {
      version: 1,
      id: 'old',
      messages: [],
      state: {},
      metadata: {},
    } as unknown as SessionSnapshot;
    const session = new PlainSession('old', snapshot);
    const out = session.toJSON();
    expect(Number.isNaN(Date.parse(out.createdAt))).toBe(false);
    expect(Date.parse(out.updatedAt)).toBeGreaterThanOrEqual(Date.parse(out.createdAt));
  });
});
