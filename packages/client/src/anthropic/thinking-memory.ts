import type { ThinkingBlock } from './wire-types.js';

/** Turns remembered per client; a tool loop needs only the last one or two. */
const CAPACITY = 256;

/**
 * With extended thinking, the API wants an assistant turn that called tools sent back with its
 * thinking blocks, signatures included. A `ChatMessage` keeps only the reasoning text, so the
 * client remembers the signed blocks of its own answers, keyed by the turn's first tool-call id,
 * and puts them back when that turn is sent again. Bounded: the oldest turns are forgotten.
 */
export class ThinkingMemory {
  private readonly turns = new Map<string, readonly ThinkingBlock[]>();

  remember(callId: string, blocks: readonly ThinkingBlock[]): void {
    this.turns.delete(callId);
    this.turns.set(callId, blocks);
    if (this.turns.size > CAPACITY) this.turns.delete(this.turns.keys().next().value as string);
  }

  recall(callId: string): readonly ThinkingBlock[] | undefined {
    return this.turns.get(callId);
  }
}
