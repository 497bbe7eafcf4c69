import type { ChatClientRunOptions, ChatMessage } from '@raf/core';
import { HttpChatClient } from '../http/http-chat-client.js';
import type { HttpClientOptions } from '../http/http-client-options.js';
import { missingKeyProblem } from '../provider-defaults.js';
import type { StreamMapper } from '../stream/stream-mapper.js';
import { TurnMemory } from '../stream/turn-memory.js';
import { ResponsesEventMapper } from './event-mapper.js';
import { buildResponsesBody } from './request-body.js';
import type { ReasoningItem } from './wire-types.js';

export interface OpenAIResponsesClientOptions extends HttpClientOptions {
  /** Base URL up to, not including, `/responses` (e.g. `https://api.openai.com/v1`). */
  baseURL: string;
  /**
   * Keep responses on the provider's side (`store: true`). Default false: nothing is kept there,
   * and each round sends back the encrypted reasoning of the round before.
   */
  store?: boolean;
}

/**
 * `IChatClient` for the OpenAI Responses API (`POST /responses`; YAML `model.apiType: responses`),
 * on the transport of the other clients: SSE over undici, the same retries, timeouts, abort
 * handling, errors and update sequence. Function calls map to tool calls; reasoning summaries
 * arrive as `reasoning-delta`, and reasoning items go back with the calls they led to.
 */
export class OpenAIResponsesChatClient extends HttpChatClient {
  private readonly options: OpenAIResponsesClientOptions;
  private readonly reasoning = new TurnMemory<ReasoningItem>();

  constructor(options: OpenAIResponsesClientOptions) {
    const provider = options.provider ?? 'openai';
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: options.stream === false ? 'application/json' : 'text/event-stream',
      ...options.headers,
    };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    const missingKey = missingKeyProblem(provider, options.baseURL, options.apiKey, options.headers);
    super(options, {
      provider,
      url: `${options.baseURL.replace(/\/+$/, '')}/responses`,
      headers,
      ...(missingKey && { missingKey }),
    });
    this.options = options;
  }

  protected requestBody(messages: readonly ChatMessage[], options: ChatClientRunOptions): string {
    return JSON.stringify(
      buildResponsesBody(messages, options, {
        model: this.modelId,
        stream: this.options.stream !== false,
        store: this.options.store ?? false,
        reasoningFor: (callId) => this.reasoning.recall(callId),
        ...(this.options.modelOptions && { defaults: this.options.modelOptions }),
        ...(this.options.extraBody && { defaultExtraBody: this.options.extraBody }),
      }),
    );
  }

  protected createMapper(): StreamMapper {
    return new ResponsesEventMapper(this.reasoning);
  }
}
