import type { ChatMessage, ContextResult, IContextProvider, InvokingContext, ISession } from '@raf/core';

export const HISTORY_PROVIDER_NAME = 'InMemoryHistoryProvider';

/**
 * The conversation history: every agent has exactly one, first in the provider chain, without
 * declaring it. It reads the session's messages before a run; the agent stores each new message
 * through `store` exactly once (input, assistant turns, tool results, in order).
 */
export class InMemoryHistoryProvider implements IContextProvider {
  readonly name: string = HISTORY_PROVIDER_NAME;
  readonly kind = 'history';
  readonly injectsTools = false;

  onInvoking({ session }: InvokingContext): ContextResult {
    return { messages: session.messages.map((message) => ({ ...message, source: 'chatHistory' })) };
  }

  store(session: ISession, messages: readonly ChatMessage[]): void {
    if (messages.length > 0) session.addMessages(messages);
  }
}

/** Anything with `kind: 'history'` and a `store` method can replace the default history. */
export function isHistoryProvider(provider: IContextProvider): provider is InMemoryHistoryProvider {
  return (
    provider.kind === 'history' && typeof (provider as Partial<InMemoryHistoryProvider>).store === 'function'
  );
}
