import type { ChatClientRunOptions, ChatMessage } from '@raf/core';
import { HttpChatClient } from '../http/http-chat-client.js';
import type { HttpClientOptions } from '../http/http-client-options.js';
import type { StreamMapper } from '../stream/stream-mapper.js';
import { TurnMemory } from '../stream/turn-memory.js';
import { OUTPUT_TOOL_NAME } from '../structured/output-format.js';
import { OutputToolMapper } from '../structured/output-tool-mapper.js';
import { AnthropicEventMapper } from './event-mapper.js';
import { buildMessagesBody } from './request-body.js';
import type { ThinkingBlock } from './wire-types.js';

export interface AnthropicClientOptions extends HttpClientOptions {
  /**
   * Base URL before `/v1/messages` (default `https://api.anthropic.com`). A base that already
   * ends in `/v1` gets `/messages` only.
   */
  baseURL?: string;
  /** The `anthropic-version` header (default `2023-06-01`). */
  anthropicVersion?: string;
}

import { ANTHROPIC_BASE_URL, missingKeyProblem } from '../provider-defaults.js';

export { ANTHROPIC_BASE_URL };

const DEFAULT_MAX_TOKENS = 4096;

function messagesUrl(baseURL: string): string {
  const base = baseURL.replace(/\/+$/, '');
  return base.endsWith('/v1') ? `${base}/messages` : `${base}/v1/messages`;
}

/**
 * `IChatClient` for the Anthropic Messages API (`POST /v1/messages`), on the same transport as
 * the OpenAI-compatible client: SSE over undici, the same retries, timeouts, abort handling and
 * errors, and the same update sequence (thinking arrives as `reasoning-delta`).
 */
export class AnthropicChatClient extends HttpChatClient {
  private readonly options: AnthropicClientOptions;
  private readonly maxTokens: number;
  private readonly thinking = new TurnMemory<ThinkingBlock>();

  constructor(options: AnthropicClientOptions) {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: options.stream === false ? 'application/json' : 'text/event-stream',
      'anthropic-version': options.anthropicVersion ?? '2023-06-01',
      ...options.headers,
    };
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    const provider = options.provider ?? 'anthropic';
    const missingKey = missingKeyProblem(provider, options.baseURL, options.apiKey, options.headers);
    super(options, {
      provider,
      url: messagesUrl(options.baseURL ?? ANTHROPIC_BASE_URL),
      headers,
      ...(missingKey && { missingKey }),
    });
    this.options = options;
    this.maxTokens = options.modelMetadata?.maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  }

  protected requestBody(messages: readonly ChatMessage[], options: ChatClientRunOptions): string {
    return JSON.stringify(
      buildMessagesBody(messages, options, {
        model: this.modelId,
        stream: this.options.stream !== false,
        maxTokens: this.maxTokens,
        thinkingFor: (callId) => this.thinking.recall(callId),
        ...(this.options.modelOptions && { defaults: this.options.modelOptions }),
        ...(this.options.extraBody && { defaultExtraBody: this.options.extraBody }),
      }),
    );
  }

  protected createMapper(options: ChatClientRunOptions): StreamMapper {
    const mapper = new AnthropicEventMapper(this.thinking);
    const output = options.modelOptions?.output ?? this.options.modelOptions?.output;
    return output ? new OutputToolMapper(mapper, OUTPUT_TOOL_NAME) : mapper;
  }
}
