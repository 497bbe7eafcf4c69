import type { AgentResponseUpdate } from '@raf/core';
import type { StreamMapper } from '../stream/stream-mapper.js';

/**
 * Anthropic's structured output comes as a call of the forced output tool: its arguments are the
 * answer. This mapper turns that call back into the answer's text (`text-delta`s of the JSON) and
 * its `toolCalls` finish into `stop`, so the tool loop sees a final answer, never a call to run.
 */
export class OutputToolMapper<Chunk> implements StreamMapper<Chunk> {
  private readonly outputCalls = new Set<string>();
  private otherCalls = 0;

  constructor(
    private readonly inner: StreamMapper<Chunk>,
    private readonly toolName: string,
  ) {}

  get streamError(): string | undefined {
    return this.inner.streamError;
  }

  consume(chunk: Chunk, out: AgentResponseUpdate[]): boolean | undefined {
    const mapped: AgentResponseUpdate[] = [];
    const ended = this.inner.consume(chunk, mapped);
    this.rewrite(mapped, out);
    return ended;
  }

  finish(sawDone: boolean, out: AgentResponseUpdate[]): string | undefined {
    const mapped: AgentResponseUpdate[] = [];
    const problem = this.inner.finish(sawDone, mapped);
    this.rewrite(mapped, out);
    return problem;
  }

  private rewrite(updates: readonly AgentResponseUpdate[], out: AgentResponseUpdate[]): void {
    for (const update of updates) {
      if (update.type === 'tool-call-start') {
        if (update.name === this.toolName) this.outputCalls.add(update.callId);
        else this.otherCalls++;
      }
      if ('callId' in update && this.outputCalls.has(update.callId)) {
        if (update.type === 'tool-call-args') out.push({ type: 'text-delta', delta: update.delta });
        continue;
      }
      if (
        update.type === 'finish' &&
        update.reason === 'toolCalls' &&
        this.otherCalls === 0 &&
        this.outputCalls.size > 0
      ) {
        out.push({ ...update, reason: 'stop' });
        continue;
      }
      out.push(update);
    }
  }
}
