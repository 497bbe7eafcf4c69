import type { ChatClientRunOptions, ChatMessage } from '@raf/core';
import { HttpChatClient } from '../http/http-chat-client.js';
import { missingKeyProblem } from '../provider-defaults.js';
import type { StreamMapper } from '../stream/stream-mapper.js';
import { ChunkMapper } from './chunk-mapper.js';
import type { OpenAICompatibleClientOptions } from './client-options.js';
import { buildRequestBody } from './request-body.js';

/**
 * `IChatClient` for any server that speaks OpenAI Chat Completions: OpenAI, DeepSeek, Agnes,
 * Ollama, vLLM, llama.cpp server, LM Studio. Streams SSE over undici; retries connection errors,
 * 408, 409, 429 and 5xx before the first chunk; never retries an abort.
 */
export class OpenAICompatibleChatClient extends HttpChatClient {
  private readonly options: OpenAICompatibleClientOptions;
  private readonly echoReasoning: boolean;

  constructor(options: OpenAICompatibleClientOptions) {
    const provider = options.provider ?? 'custom';
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: options.stream === false ? 'application/json' : 'text/event-stream',
      ...options.headers,
    };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    const missingKey = missingKeyProblem(provider, options.baseURL, options.apiKey, options.headers);
    super(options, {
      provider,
      url: `${options.baseURL.replace(/\/+$/, '')}/chat/completions`,
      headers,
      ...(missingKey && { missingKey }),
    });
    this.options = options;
    this.echoReasoning = options.echoReasoning ?? provider === 'deepseek';
  }

  protected requestBody(messages: readonly ChatMessage[], options: ChatClientRunOptions): string {
    return JSON.stringify(
      buildRequestBody(messages, options, {
        model: this.modelId,
        stream: this.options.stream !== false,
        echoReasoning: this.echoReasoning,
        ...(this.options.modelOptions && { defaults: this.options.modelOptions }),
        ...(this.options.extraBody && { defaultExtraBody: this.options.extraBody }),
      }),
    );
  }

  protected createMapper(): StreamMapper {
    return new ChunkMapper();
  }
}
