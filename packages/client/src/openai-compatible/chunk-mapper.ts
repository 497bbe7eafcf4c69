import type { AgentResponseUpdate, Usage } from '@raf/core';
import { finishUpdate } from '../stream/finish-update.js';
import { mapUsage } from './wire-mapping.js';
import type { WireChunk, WireDelta, WireToolCallDelta } from './wire-types.js';

interface PendingCall {
  id: string | undefined;
  name: string;
  args: string;
  started: boolean;
}

let syntheticIds = 0;
function syntheticCallId(index: number): string {
  syntheticIds = (syntheticIds + 1) % 1e9;
  return `call_${Date.now().toString(36)}_${syntheticIds}_${index}`;
}

/**
 * Turns Chat Completions chunks into updates. Tool-call deltas (split across chunks, several in
 * parallel, keyed by `index`) become start → args… → end; ends are emitted, in index order, when
 * the model's turn finishes, so every `tool-call-end` carries the complete arguments.
 */
export class ChunkMapper {
  private readonly calls = new Map<number, PendingCall>();
  private finishRaw: string | undefined;
  private usage: Usage | undefined;
  private metadataSent = false;
  private errorMessage: string | undefined;

  /** A provider error carried inside the stream (`{"error": …}`), if one arrived. */
  get streamError(): string | undefined {
    return this.errorMessage;
  }

  consume(chunk: WireChunk, out: AgentResponseUpdate[]): undefined {
    if (chunk.error !== undefined) {
      const error = chunk.error;
      this.errorMessage = typeof error === 'string' ? error : (error.message ?? JSON.stringify(error));
      return;
    }
    if (!this.metadataSent && (chunk.id !== undefined || chunk.model !== undefined)) {
      this.metadataSent = true;
      const metadata: AgentResponseUpdate = { type: 'response-metadata' };
      if (chunk.id !== undefined) metadata.id = chunk.id;
      if (chunk.model !== undefined) metadata.model = chunk.model;
      out.push(metadata);
    }
    const choice = chunk.choices?.[0];
    if (choice) {
      const delta = choice.delta ?? choice.message;
      if (delta) this.consumeDelta(delta, out);
      if (choice.finish_reason) this.finishRaw = choice.finish_reason;
    }
    if (chunk.usage) {
      this.usage = mapUsage(chunk.usage);
      out.push({ type: 'usage', usage: this.usage });
    }
  }

  private consumeDelta(delta: WireDelta, out: AgentResponseUpdate[]): void {
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) out.push({ type: 'reasoning-delta', delta: reasoning });
    if (delta.content) out.push({ type: 'text-delta', delta: delta.content });
    if (delta.tool_calls) {
      for (let i = 0; i < delta.tool_calls.length; i++) {
        const call = delta.tool_calls[i]!;
        this.consumeToolCall(call, call.index ?? this.indexOf(call.id, i), out);
      }
    }
  }

  // Servers that omit `index` still send an `id` on a call's first delta.
  private indexOf(id: string | undefined, position: number): number {
    if (id !== undefined) {
      for (const [index, call] of this.calls) if (call.id === id) return index;
      return this.calls.size;
    }
    return position;
  }

  private consumeToolCall(delta: WireToolCallDelta, index: number, out: AgentResponseUpdate[]): void {
    let call = this.calls.get(index);
    if (!call) {
      call = { id: undefined, name: '', args: '', started: false };
      this.calls.set(index, call);
    }
    if (delta.id) call.id = delta.id;
    if (delta.function?.name) call.name += delta.function.name;
    const args = delta.function?.arguments;
    if (call.started) {
      if (args) {
        call.args += args;
        out.push({ type: 'tool-call-args', callId: call.id!, delta: args });
      }
      return;
    }
    if (args) call.args += args;
    // Start once the name is known; arguments that came first are sent with the start.
    if (call.name !== '') {
      call.id ??= syntheticCallId(index);
      call.started = true;
      out.push({ type: 'tool-call-start', callId: call.id, name: call.name });
      if (call.args !== '') out.push({ type: 'tool-call-args', callId: call.id, delta: call.args });
    }
  }

  /**
   * Ends the turn. Returns an error message when the stream was cut short (no finish reason and
   * no `[DONE]`) or a call never got a name, so truncation is never silent.
   */
  finish(sawDone: boolean, out: AgentResponseUpdate[]): string | undefined {
    // Checked before any end is emitted: a cut-short call must never reach execution.
    if (this.finishRaw === undefined && !sawDone) {
      return 'the stream ended before the model finished (no finish_reason and no [DONE])';
    }
    const indices = [...this.calls.keys()].sort((a, b) => a - b);
    for (const index of indices) {
      if (!this.calls.get(index)!.started) return `tool call #${index} arrived without a function name`;
    }
    for (const index of indices) {
      const call = this.calls.get(index)!;
      out.push({ type: 'tool-call-end', callId: call.id!, name: call.name, arguments: call.args });
    }
    out.push(finishUpdate(this.finishRaw, this.calls.size, this.usage));
    return undefined;
  }
}
