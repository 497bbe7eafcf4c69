import { ConfigError, type JSONValue } from '@raf/core';
import type { AgentLike } from '../agent/agent-like.js';
import { textOf } from '../executors/message-text.js';

export function requireAgents(mode: string, agents: readonly AgentLike[], minimum: number): void {
  if (agents.length < minimum)
    throw new ConfigError(
      `${mode} needs at least ${minimum} agent${minimum > 1 ? 's' : ''} (got ${agents.length})`,
    );
  const seen = new Set<string>();
  for (const agent of agents) {
    if (seen.has(agent.name)) throw new ConfigError(`${mode}: two agents are named "${agent.name}"`);
    seen.add(agent.name);
  }
}

/** Several agents' answers as one text: a `## name` heading over each. */
export function mergeAnswers(names: readonly string[], answers: readonly JSONValue[]): string {
  return names.map((name, i) => `## ${name}\n${textOf(answers[i]).trim()}`).join('\n\n');
}

/** Where a name first occurs in a text as a whole word (case-insensitive); -1 when it does not. */
export function wordIndex(text: string, name: string): number {
  const escaped = name.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`(^|[^\\p{L}\\p{N}_-])${escaped}(?![\\p{L}\\p{N}_-])`, 'u').exec(
    text.toLowerCase(),
  );
  return match ? match.index + match[1]!.length : -1;
}

/** The candidate named earliest in the text (the longest at one position); undefined when none is. */
export function firstNamed(text: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; at: number } | undefined;
  for (const name of candidates) {
    if (!name) continue;
    const at = wordIndex(text, name);
    if (at < 0) continue;
    if (!best || at < best.at || (at === best.at && name.length > best.name.length)) best = { name, at };
  }
  return best?.name;
}

/** Whether any keyword occurs in the text (case-insensitive, as a whole word). */
export function mentionsAny(text: string, keywords: readonly string[]): boolean {
  return keywords.some((k) => wordIndex(text, k) >= 0);
}
