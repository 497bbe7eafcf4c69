import type { ChatMessage } from '@raf/core';

/** Messages that must stay together: a system message, a plain message, or an assistant tool-call message with its results. */
export interface MessageGroup {
  messages: ChatMessage[];
  system: boolean;
  toolCalls: number;
}

/**
 * Splits a conversation into groups. A tool message whose call is not in the group before it (an
 * orphan) is kept as its own group and flagged `orphan`, so strategies can drop it first.
 */
export function groupMessages(messages: readonly ChatMessage[]): (MessageGroup & { orphan?: boolean })[] {
  const groups: (MessageGroup & { orphan?: boolean })[] = [];
  let open: (MessageGroup & { ids: Set<string> }) | undefined;
  for (const message of messages) {
    if (message.role === 'tool') {
      if (open && message.toolCallId !== undefined && open.ids.has(message.toolCallId)) {
        open.messages.push(message);
        continue;
      }
      groups.push({ messages: [message], system: false, toolCalls: 0, orphan: true });
      continue;
    }
    open = undefined;
    if (message.role === 'assistant' && message.toolCalls?.length) {
      open = {
        messages: [message],
        system: false,
        toolCalls: message.toolCalls.length,
        ids: new Set(message.toolCalls.map((c) => c.id)),
      };
      groups.push(open);
      continue;
    }
    groups.push({ messages: [message], system: message.role === 'system', toolCalls: 0 });
  }
  return groups.map((g) => ({
    messages: g.messages,
    system: g.system,
    toolCalls: g.toolCalls,
    ...(g.orphan && { orphan: true }),
  }));
}

export function flatten(groups: readonly MessageGroup[]): ChatMessage[] {
  return groups.flatMap((group) => group.messages);
}
