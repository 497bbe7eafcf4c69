import { AbstractChat, type ChatState, type ChatStatus, DefaultChatTransport, type UIMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Replicas,
  type Served,
  sqliteReplicas,
  TOKEN_A,
  TOKEN_B,
  until,
} from '../test-support/served-fixture.js';

// The AI SDK's resumable streams (`resumeStream()`: GET {api}/{chatId}/stream) against another
// replica: a page reloaded mid-run reads the running turn again, from its start, to the end.
let replicas: Replicas;
let one: Served;
let two: Served;

beforeAll(async () => {
  replicas = await sqliteReplicas({ rounds: 4, chunkDelayMs: 40 }, 'raf-chat-resume-');
  ({ one, two } = replicas);
});
afterAll(() => replicas?.close());

class MemoryState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}
const chatOn = (served: Served, id: string, token = TOKEN_A) =>
  new (class extends AbstractChat<UIMessage> {})({
    id,
    state: new MemoryState(),
    transport: new DefaultChatTransport({
      api: `${served.url}/v1/agents/noter/chat`,
      headers: { authorization: `Bearer ${token}` },
    }),
  });

describe('useChat resume (GET /v1/agents/{name}/chat/{id}/stream)', () => {
  it('a chat resumed on another replica mid-run gets the running turn to its end; none running: nothing', async () => {
    const first = chatOn(one, 'resumed-chat');
    const sent = first.sendMessage({ text: 'take notes' });
    await until(
      () => (first.messages.at(-1)?.parts ?? []).some((p) => p.type === 'dynamic-tool'),
      'the first tool part',
    );
    // Another tenant has no such chat: nothing to resume.
    const stranger = chatOn(two, 'resumed-chat', TOKEN_B);
    await stranger.resumeStream();
    expect(stranger.messages).toEqual([]);

    const reloaded = chatOn(two, 'resumed-chat');
    await reloaded.resumeStream();
    expect(reloaded.error).toBeUndefined();
    const message = reloaded.messages.at(-1)!;
    expect(message.role).toBe('assistant');
    expect(message.parts.filter((p) => p.type === 'dynamic-tool')).toHaveLength(4);
    expect(message.parts.some((p) => p.type === 'text' && p.text.includes('all done'))).toBe(true);
    await sent;
    // The same turn as the chat that started it saw.
    expect(message.parts.filter((p) => p.type === 'dynamic-tool')).toEqual(
      first.messages.at(-1)!.parts.filter((p) => p.type === 'dynamic-tool'),
    );
    const later = chatOn(two, 'resumed-chat');
    await later.resumeStream();
    expect(later.messages).toEqual([]);
  }, 60_000);
});
