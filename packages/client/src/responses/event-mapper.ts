import type { AgentResponseUpdate, Usage } from '@raf/core';
import { finishUpdate } from '../stream/finish-update.js';
import type { StreamMapper } from '../stream/stream-mapper.js';
import type { TurnMemory } from '../stream/turn-memory.js';
import type {
  ReasoningItem,
  ResponsesWireEvent,
  ResponsesWireItem,
  ResponsesWireResponse,
  ResponsesWireUsage,
} from './wire-types.js';

interface PendingCall {
  id: string;
  itemId: string;
  name: string;
  args: string;
}

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/** Responses usage: `input_tokens` include the cached ones (as Chat Completions' prompt tokens do). */
export function mapResponsesUsage(raw: ResponsesWireUsage): Usage {
  const promptTokens = count(raw.input_tokens) ?? 0;
  const completionTokens = count(raw.output_tokens) ?? 0;
  const usage: Usage = {
    promptTokens,
    completionTokens,
    totalTokens: count(raw.total_tokens) ?? promptTokens + completionTokens,
  };
  const cached = count(raw.input_tokens_details?.cached_tokens);
  const reasoning = count(raw.output_tokens_details?.reasoning_tokens);
  if (cached !== undefined) usage.promptCacheHitTokens = cached;
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

/**
 * Turns Responses API events into the update sequence every client yields: `response-metadata`,
 * text and reasoning deltas (reasoning summaries, or the reasoning text itself), `tool-call-start`
 * → `tool-call-args`… per `function_call` item, `usage`, then one `tool-call-end` per call in
 * order and `finish`. `response.completed` / `incomplete` / `failed` end the answer. Reasoning
 * items are remembered (with their encrypted content) to go back with the calls they led to.
 */
export class ResponsesEventMapper implements StreamMapper<ResponsesWireEvent> {
  private readonly calls: PendingCall[] = [];
  private readonly byItem = new Map<string, PendingCall>();
  private readonly reasoning: ReasoningItem[] = [];
  private metadataSent = false;
  private usage: Usage | undefined;
  private stopRaw: string | undefined;
  private refused = false;
  private errorMessage: string | undefined;
  private problem: string | undefined;

  constructor(private readonly memory?: TurnMemory<ReasoningItem>) {}

  get streamError(): string | undefined {
    return this.errorMessage;
  }

  consume(event: ResponsesWireEvent, out: AgentResponseUpdate[]): boolean {
    switch (event.type) {
      case 'response.output_text.delta':
        if (event.delta) out.push({ type: 'text-delta', delta: event.delta });
        return false;
      case 'response.function_call_arguments.delta':
        this.argumentsDelta(event.item_id, event.delta, out);
        return false;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (event.delta) out.push({ type: 'reasoning-delta', delta: event.delta });
        return false;
      case 'response.refusal.delta':
        this.refused = true;
        if (event.delta) out.push({ type: 'text-delta', delta: event.delta });
        return false;
      case 'response.created':
      case 'response.in_progress':
        if (event.response) this.metadata(event.response, out);
        return false;
      case 'response.output_item.added':
        if (event.item) this.itemAdded(event.item, out);
        return false;
      case 'response.function_call_arguments.done':
        // Only when no delta came (some proxies send the arguments whole).
        if (event.item_id !== undefined && typeof event.arguments === 'string') {
          const call = this.byItem.get(event.item_id);
          if (call && call.args === '' && event.arguments !== '')
            this.argumentsDelta(call.itemId, event.arguments, out);
        }
        return false;
      case 'response.output_item.done':
        if (event.item) this.itemDone(event.item, out);
        return false;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        this.end(event.response ?? {}, out);
        return true;
      case 'error':
        this.errorMessage = event.code
          ? `${event.code}: ${event.message ?? ''}`
          : (event.message ?? JSON.stringify(event));
        return false;
      case undefined:
        // A non-streamed answer is the Response object itself.
        if ((event as ResponsesWireResponse).object === 'response') {
          this.whole(event as ResponsesWireResponse, out);
          return true;
        }
        return false;
      default:
        // Content parts, annotations, web-search progress and types the API may add later.
        return false;
    }
  }

  private metadata(response: ResponsesWireResponse, out: AgentResponseUpdate[]): void {
    if (this.metadataSent || (response.id === undefined && response.model === undefined)) return;
    this.metadataSent = true;
    const metadata: AgentResponseUpdate = { type: 'response-metadata' };
    if (response.id !== undefined) metadata.id = response.id;
    if (response.model !== undefined) metadata.model = response.model;
    out.push(metadata);
  }

  private itemAdded(item: ResponsesWireItem, out: AgentResponseUpdate[]): void {
    if (item.type !== 'function_call') return;
    const call: PendingCall = {
      id: item.call_id ?? item.id ?? `call_${this.calls.length}`,
      itemId: item.id ?? item.call_id ?? `item_${this.calls.length}`,
      name: item.name ?? '',
      args: '',
    };
    this.calls.push(call);
    this.byItem.set(call.itemId, call);
    if (call.name === '') this.problem ??= `function_call item ${call.itemId} arrived without a name`;
    else out.push({ type: 'tool-call-start', callId: call.id, name: call.name });
  }

  private argumentsDelta(
    itemId: string | undefined,
    delta: string | undefined,
    out: AgentResponseUpdate[],
  ): void {
    if (!delta) return;
    const call = itemId === undefined ? undefined : this.byItem.get(itemId);
    if (!call) {
      this.problem ??= `function_call_arguments for item ${String(itemId)}, which never started`;
      return;
    }
    if (call.name === '') return;
    call.args += delta;
    out.push({ type: 'tool-call-args', callId: call.id, delta });
  }

  private itemDone(item: ResponsesWireItem, out: AgentResponseUpdate[]): void {
    if (item.type === 'reasoning' && item.id !== undefined) {
      const summary = (item.summary ?? []).map((s) => ({
        type: 'summary_text' as const,
        text: s.text ?? '',
      }));
      this.reasoning.push({
        type: 'reasoning',
        id: item.id,
        summary,
        ...(typeof item.encrypted_content === 'string' && { encrypted_content: item.encrypted_content }),
      });
    } else if (item.type === 'function_call') {
      const call = this.byItem.get(item.id ?? item.call_id ?? '');
      if (call && call.args === '' && item.arguments) this.argumentsDelta(call.itemId, item.arguments, out);
    }
  }

  /** A non-streamed answer: the same updates, from its output items. */
  private whole(response: ResponsesWireResponse, out: AgentResponseUpdate[]): void {
    this.metadata(response, out);
    for (const item of response.output ?? []) {
      if (item.type === 'message') {
        for (const part of item.content ?? []) {
          if (part.type === 'output_text' && part.text) out.push({ type: 'text-delta', delta: part.text });
          else if (part.type === 'refusal' && part.refusal) {
            this.refused = true;
            out.push({ type: 'text-delta', delta: part.refusal });
          }
        }
      } else if (item.type === 'reasoning') {
        const text = (item.summary ?? []).map((s) => s.text ?? '').join('');
        if (text) out.push({ type: 'reasoning-delta', delta: text });
        this.itemDone(item, out);
      } else if (item.type === 'function_call') {
        this.itemAdded(item, out);
        this.itemDone(item, out);
      }
    }
    this.end(response, out);
  }

  private end(response: ResponsesWireResponse, out: AgentResponseUpdate[]): void {
    if (response.status === 'failed' || response.error) {
      const error = response.error ?? {};
      this.errorMessage = `${error.code ? `${error.code}: ` : ''}${error.message ?? 'the response failed'}`;
      return;
    }
    const reason = response.incomplete_details?.reason;
    this.stopRaw =
      response.status === 'incomplete'
        ? reason === 'max_output_tokens'
          ? 'length'
          : reason === 'content_filter'
            ? 'content_filter'
            : (reason ?? 'incomplete')
        : this.refused
          ? 'refusal'
          : 'stop';
    if (response.usage) {
      this.usage = mapResponsesUsage(response.usage);
      out.push({ type: 'usage', usage: this.usage });
    }
  }

  finish(sawDone: boolean, out: AgentResponseUpdate[]): string | undefined {
    // Checked before any end is emitted: a cut-short call must never reach execution.
    if (this.stopRaw === undefined || !sawDone)
      return 'the stream ended before the model finished (no response.completed)';
    if (this.problem !== undefined) return this.problem;
    for (const call of this.calls)
      out.push({ type: 'tool-call-end', callId: call.id, name: call.name, arguments: call.args });
    const first = this.calls[0];
    if (first && this.reasoning.length > 0) this.memory?.remember(first.id, this.reasoning);
    out.push(finishUpdate(this.stopRaw, this.calls.length, this.usage));
    return undefined;
  }
}
