import type { ChatMessage, JSONValue, MessageRole } from '@raf/core';
import type { AgentLikeInput } from '../agent/agent-like.js';

const isMessage = (v: JSONValue): boolean =>
  v !== null &&
  typeof v === 'object' &&
  !Array.isArray(v) &&
  typeof v.role === 'string' &&
  ROLES.has(v.role) &&
  typeof v.content === 'string';

/** A node message as text: strings as they are, `{ text }` by its text, lists line by line, the rest as JSON. */
export function textOf(value: JSONValue | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(textOf).join('\n\n');
  if (typeof value.text === 'string') return value.text;
  if (isMessage(value)) return value.content as string;
  return JSON.stringify(value);
}

/** A node message as an agent's input: a list of `{ role, content }` is a conversation; the rest is text. */
export function agentInputOf(value: JSONValue): AgentLikeInput {
  if (Array.isArray(value) && value.length > 0 && value.every(isMessage)) return value.map(chatMessage);
  return textOf(value);
}

const ROLES: ReadonlySet<string> = new Set<MessageRole>(['system', 'user', 'assistant', 'tool']);

/** A `{ role, content }` node message (checked by `isMessage`) as the message an agent reads. */
function chatMessage(value: JSONValue): ChatMessage {
  const { role, content, name } =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
  if (typeof role !== 'string' || !ROLES.has(role) || typeof content !== 'string')
    throw new TypeError('not a { role, content } message');
  return { role: role as MessageRole, content, ...(typeof name === 'string' && { name }) };
}
