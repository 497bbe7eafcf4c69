import { type ChatMessage, messageText } from '@raf/core';

/** The latest user message of a run: this run's input first, else the history (a resumed run). */
export function latestUserText(
  input: readonly ChatMessage[],
  messages: readonly ChatMessage[],
): string | undefined {
  for (const list of [input, messages]) {
    for (let i = list.length - 1; i >= 0; i--) {
      const message = list[i] as ChatMessage;
      if (message.role === 'user' && messageText(message).trim()) return messageText(message);
    }
  }
  return undefined;
}
