import { ScriptedChatClient, type ScriptedResponse } from '@raf/client/testing';
import { type ChatMessage, messageText } from '@raf/core';
import { AgentBuilder, type ChatClientAgent } from '@raf/framework';

/** An agent on a scripted model: answers in order; a function sees the messages of each call. */
export function scriptedAgent(
  name: string,
  answers: (string | ((messages: readonly ChatMessage[]) => string))[],
  description?: string,
): ChatClientAgent & { client: ScriptedChatClient } {
  const script: ScriptedResponse[] = answers.map((a) =>
    typeof a === 'string' ? { text: a } : (messages: readonly ChatMessage[]) => ({ text: a(messages) }),
  );
  const client = new ScriptedChatClient(script);
  const builder = new AgentBuilder(name).chatClient(client);
  if (description) builder.description(description);
  return Object.assign(builder.build(), { client });
}

/** The last user message an agent's model saw on its n-th call. */
export function lastInput(agent: { client: ScriptedChatClient }, call = 0): string {
  const message = agent.client.calls[call]?.messages.filter((m) => m.role === 'user').at(-1);
  return message ? messageText(message) : '';
}
