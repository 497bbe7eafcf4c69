import type { ChatMessage, JSONValue } from '@raf/core';
import type { AgentLikeInput } from '../agent/agent-like.js';

const isMessage = (v: JSONValue): boolean =>
  v !== null &&
  typeof v === 'object' &&
  !Array.isArray(v) &&
  typeof v.role === 'string' &&
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
  if (Array.isArray(value) && value.length > 0 && value.every(isMessage))
    return value as unknown as ChatMessage[];
  return textOf(value);
}
