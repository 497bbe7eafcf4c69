/** Turns remembered per client; a tool loop needs only the last one or two. */
const CAPACITY = 256;

/**
 * What a provider wants sent back with an assistant turn that called tools, and a `ChatMessage`
 * cannot hold: Anthropic's signed thinking blocks, the Responses API's reasoning items (encrypted
 * when nothing is stored server-side). The client remembers them for its own answers, keyed by
 * the turn's first tool-call id, and puts them back when that turn is sent again. Bounded: the
 * oldest turns are forgotten.
 */
export class TurnMemory<Item> {
  private readonly turns = new Map<string, readonly Item[]>();

  remember(callId: string, items: readonly Item[]): void {
    this.turns.delete(callId);
    this.turns.set(callId, items);
    if (this.turns.size > CAPACITY) this.turns.delete(this.turns.keys().next().value as string);
  }

  recall(callId: string): readonly Item[] | undefined {
    return this.turns.get(callId);
  }
}
