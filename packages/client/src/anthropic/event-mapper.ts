import type { AgentResponseUpdate, Usage } from '@raf/core';
import { finishUpdate } from '../stream/finish-update.js';
import type { StreamMapper } from '../stream/stream-mapper.js';
import type { TurnMemory } from '../stream/turn-memory.js';
import { mapAnthropicUsage, mergeUsage } from './usage.js';
import type {
  AnthropicWireBlock,
  AnthropicWireDelta,
  AnthropicWireEvent,
  AnthropicWireMessage,
  AnthropicWireUsage,
  ThinkingBlock,
} from './wire-types.js';

interface PendingCall {
  id: string;
  name: string;
  args: string;
  /** The block's `input`, used when no `input_json_delta` came (a whole answer, some proxies). */
  input: unknown;
}

type OpenBlock =
  | { kind: 'text' }
  | { kind: 'tool'; call: PendingCall }
  | { kind: 'thinking'; block: { type: 'thinking'; thinking: string; signature: string } }
  | { kind: 'other' };

let syntheticIds = 0;
function syntheticCallId(index: number): string {
  syntheticIds = (syntheticIds + 1) % 1e9;
  return `toolu_${Date.now().toString(36)}_${syntheticIds}_${index}`;
}

/**
 * Turns Messages API events into updates, the same sequence the OpenAI-compatible client yields:
 * `response-metadata`, text and reasoning deltas, `tool-call-start` → `tool-call-args`… per
 * `tool_use` block (arguments from `input_json_delta`), `usage`, then at the end one
 * `tool-call-end` per call in order with the complete arguments, and `finish`. `message_stop`
 * ends the answer; an `error` event is a provider error inside the stream.
 */
export class AnthropicEventMapper implements StreamMapper<AnthropicWireEvent> {
  private readonly blocks = new Map<number, OpenBlock>();
  private readonly calls: PendingCall[] = [];
  private readonly thinking: ThinkingBlock[] = [];
  private readonly rawUsage: AnthropicWireUsage = {};
  private usage: Usage | undefined;
  private stopRaw: string | undefined;
  private errorMessage: string | undefined;
  private problem: string | undefined;

  constructor(private readonly memory?: TurnMemory<ThinkingBlock>) {}

  get streamError(): string | undefined {
    return this.errorMessage;
  }

  consume(event: AnthropicWireEvent, out: AgentResponseUpdate[]): boolean {
    switch (event.type) {
      case 'content_block_delta':
        if (event.delta) this.delta(event.index ?? 0, event.delta, out);
        return false;
      case 'message_start':
        if (event.message) this.start(event.message, out);
        return false;
      case 'content_block_start':
        this.blockStart(event.index ?? 0, event.content_block ?? {}, out);
        return false;
      case 'content_block_stop':
        this.blockStop(event.index ?? 0, out);
        return false;
      case 'message_delta':
        if (event.delta?.stop_reason) this.stopRaw = event.delta.stop_reason;
        this.reportUsage(event.usage, out);
        return false;
      case 'message_stop':
        return true;
      case 'error': {
        const error = event.error ?? {};
        const message = error.message ?? JSON.stringify(event);
        this.errorMessage = error.type ? `${error.type}: ${message}` : message;
        return false;
      }
      case 'message':
        this.whole(event, out);
        return true;
      default:
        // `ping`, and event types the API may add later (its versioning policy allows it).
        return false;
    }
  }

  private start(message: AnthropicWireMessage, out: AgentResponseUpdate[]): void {
    if (message.id !== undefined || message.model !== undefined) {
      const metadata: AgentResponseUpdate = { type: 'response-metadata' };
      if (message.id !== undefined) metadata.id = message.id;
      if (message.model !== undefined) metadata.model = message.model;
      out.push(metadata);
    }
    if (message.usage) mergeUsage(this.rawUsage, message.usage);
  }

  /** A non-streamed answer: the same updates, from its content blocks. */
  private whole(message: AnthropicWireMessage, out: AgentResponseUpdate[]): void {
    this.start({ ...message, usage: null }, out);
    (message.content ?? []).forEach((block, index) => {
      this.blockStart(index, block, out);
      this.blockStop(index, out);
    });
    if (message.stop_reason) this.stopRaw = message.stop_reason;
    this.reportUsage(message.usage, out);
  }

  /** The usage so far (from `message_start` and this), once any count has arrived. */
  private reportUsage(usage: AnthropicWireUsage | null | undefined, out: AgentResponseUpdate[]): void {
    if (usage) mergeUsage(this.rawUsage, usage);
    if (Object.keys(this.rawUsage).length === 0) return;
    this.usage = mapAnthropicUsage(this.rawUsage);
    out.push({ type: 'usage', usage: this.usage });
  }

  private blockStart(index: number, block: AnthropicWireBlock, out: AgentResponseUpdate[]): void {
    switch (block.type) {
      case 'text':
        this.blocks.set(index, { kind: 'text' });
        if (block.text) out.push({ type: 'text-delta', delta: block.text });
        return;
      case 'tool_use': {
        const call: PendingCall = {
          id: block.id || syntheticCallId(index),
          name: block.name ?? '',
          args: '',
          input: block.input,
        };
        this.calls.push(call);
        this.blocks.set(index, { kind: 'tool', call });
        if (call.name === '') this.problem ??= `tool_use block #${index} arrived without a name`;
        else out.push({ type: 'tool-call-start', callId: call.id, name: call.name });
        return;
      }
      case 'thinking': {
        const thinking = { type: 'thinking' as const, thinking: '', signature: block.signature ?? '' };
        this.blocks.set(index, { kind: 'thinking', block: thinking });
        if (block.thinking) this.reason(thinking, block.thinking, out);
        return;
      }
      case 'redacted_thinking':
        if (block.data !== undefined) this.thinking.push({ type: 'redacted_thinking', data: block.data });
        this.blocks.set(index, { kind: 'other' });
        return;
      default:
        // Server tools (web search results, …) are the provider's business, not the tool loop's.
        this.blocks.set(index, { kind: 'other' });
    }
  }

  private reason(block: { thinking: string }, text: string, out: AgentResponseUpdate[]): void {
    block.thinking += text;
    out.push({ type: 'reasoning-delta', delta: text });
  }

  private delta(index: number, delta: AnthropicWireDelta, out: AgentResponseUpdate[]): void {
    const open = this.blocks.get(index);
    switch (delta.type) {
      case 'text_delta':
        if (delta.text) out.push({ type: 'text-delta', delta: delta.text });
        return;
      case 'input_json_delta':
        // A server tool's input (web search) streams too: not the tool loop's business.
        if (open === undefined) this.problem ??= `input_json_delta for block #${index}, which never started`;
        if (open?.kind !== 'tool') return;
        if (delta.partial_json && open.call.name !== '') {
          open.call.args += delta.partial_json;
          out.push({ type: 'tool-call-args', callId: open.call.id, delta: delta.partial_json });
        }
        return;
      case 'thinking_delta':
        if (!delta.thinking) return;
        if (open?.kind === 'thinking') this.reason(open.block, delta.thinking, out);
        else out.push({ type: 'reasoning-delta', delta: delta.thinking });
        return;
      case 'signature_delta':
        if (open?.kind === 'thinking' && delta.signature) open.block.signature += delta.signature;
        return;
      default:
    }
  }

  private blockStop(index: number, out: AgentResponseUpdate[]): void {
    const open = this.blocks.get(index);
    if (open?.kind === 'thinking') {
      if (open.block.signature !== '') this.thinking.push(open.block);
    } else if (open?.kind === 'tool' && open.call.args === '' && open.call.name !== '') {
      // No input_json_delta: the input came whole with the block (or is empty).
      open.call.args = JSON.stringify(open.call.input ?? {});
      out.push({ type: 'tool-call-args', callId: open.call.id, delta: open.call.args });
    }
    this.blocks.delete(index);
  }

  finish(sawDone: boolean, out: AgentResponseUpdate[]): string | undefined {
    // Checked before any end is emitted: a cut-short call must never reach execution.
    if (this.stopRaw === undefined && !sawDone) {
      return 'the stream ended before the model finished (no stop_reason and no message_stop)';
    }
    if (this.problem !== undefined) return this.problem;
    for (const call of this.calls) {
      out.push({ type: 'tool-call-end', callId: call.id, name: call.name, arguments: call.args });
    }
    const first = this.calls[0];
    if (first && this.thinking.length > 0) this.memory?.remember(first.id, this.thinking);
    out.push(finishUpdate(this.stopRaw, this.calls.length, this.usage));
    return undefined;
  }
}
