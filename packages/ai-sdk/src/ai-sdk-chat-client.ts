import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4StreamPart,
  LanguageModelV4ToolChoice,
} from '@ai-sdk/provider';
import {
  type AgentResponseUpdate,
  CancelledError,
  ChatClientError,
  type ChatClientRunOptions,
  type ChatMessage,
  ConfigError,
  type ContentCapabilities,
  type IChatClient,
  type ModelMetadata,
  type ModelOptions,
  type ToolChoice,
  unsupportedContentProblem,
  withinCapabilities,
} from '@raf/core';
import { toPrompt } from './prompt.js';
import { StreamPartMapper } from './stream-parts.js';

export interface AISDKClientOptions {
  /** What the model takes besides text; by default images and files (the AI SDK passes them on). */
  capabilities?: ContentCapabilities;
  modelMetadata?: ModelMetadata;
  /** Default model options; per-run `modelOptions` override them field by field. */
  modelOptions?: ModelOptions;
  /** The AI SDK's `providerOptions` for every call (`{ openai: { … } }`). */
  providerOptions?: LanguageModelV4CallOptions['providerOptions'];
}

function toolChoice(choice: ToolChoice): LanguageModelV4ToolChoice {
  return typeof choice === 'string' ? { type: choice } : { type: 'tool', toolName: choice.name };
}

/** RAF's request as the AI SDK's call options. */
export function callOptions(
  messages: readonly ChatMessage[],
  run: ChatClientRunOptions,
  defaults: AISDKClientOptions,
): LanguageModelV4CallOptions {
  const o = { ...defaults.modelOptions, ...run.modelOptions };
  const call: LanguageModelV4CallOptions = { prompt: toPrompt(messages) };
  if (o.temperature !== undefined) call.temperature = o.temperature;
  if (o.maxTokens !== undefined) call.maxOutputTokens = o.maxTokens;
  if (o.topP !== undefined) call.topP = o.topP;
  if (o.stop !== undefined) call.stopSequences = o.stop;
  if (o.seed !== undefined) call.seed = o.seed;
  if (o.presencePenalty !== undefined) call.presencePenalty = o.presencePenalty;
  if (o.frequencyPenalty !== undefined) call.frequencyPenalty = o.frequencyPenalty;
  if (o.reasoningEffort !== undefined)
    call.reasoning = o.reasoningEffort as LanguageModelV4CallOptions['reasoning'];
  if (o.output) {
    call.responseFormat = {
      type: 'json',
      schema: o.output.schema as never,
      ...(o.output.name !== undefined && { name: o.output.name }),
      ...(o.output.description !== undefined && { description: o.output.description }),
    };
  }
  if (run.tools && run.tools.length > 0) {
    call.tools = run.tools.map(
      (tool): LanguageModelV4FunctionTool => ({
        type: 'function',
        name: tool.name,
        description: tool.description,
        inputSchema: tool.parameters as LanguageModelV4FunctionTool['inputSchema'],
      }),
    );
    if (run.toolChoice !== undefined) call.toolChoice = toolChoice(run.toolChoice);
  }
  if (run.signal) call.abortSignal = run.signal;
  if (run.extraHeaders) call.headers = run.extraHeaders;
  if (defaults.providerOptions) call.providerOptions = defaults.providerOptions;
  return call;
}

/**
 * Any AI SDK language model (`LanguageModelV4`: `@ai-sdk/openai`, `@ai-sdk/google`, a mock) as a
 * RAF `IChatClient`: RAF's tool loop, approvals, sessions and governance run over it; the model's
 * `doStream` is called once per round with RAF's tools as function tools.
 */
export class AISDKChatClient implements IChatClient {
  readonly modelId: string;
  readonly provider: string;
  readonly capabilities: ContentCapabilities;
  readonly modelMetadata?: ModelMetadata;

  constructor(
    readonly model: LanguageModelV4,
    private readonly options: AISDKClientOptions = {},
  ) {
    if (model?.specificationVersion !== 'v4')
      throw new ConfigError(
        `fromAISDK needs an AI SDK 7 language model (specificationVersion "v4"), got ${JSON.stringify(model?.specificationVersion)}: update the @ai-sdk provider package`,
      );
    this.modelId = model.modelId;
    this.provider = `ai-sdk:${model.provider}`;
    this.capabilities = options.capabilities ?? { images: true, files: true };
    if (options.modelMetadata) this.modelMetadata = options.modelMetadata;
  }

  async *run(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions = {},
  ): AsyncGenerator<AgentResponseUpdate, void, undefined> {
    for await (const batch of this.runBatches(messages, options)) yield* batch;
  }

  async *runBatches(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions = {},
  ): AsyncGenerator<AgentResponseUpdate[], void, undefined> {
    const signal = options.signal;
    if (signal?.aborted) throw new CancelledError();
    const unsupported = unsupportedContentProblem(messages, this.capabilities, this.modelId);
    if (unsupported) throw new ConfigError(`${this.provider}: ${unsupported}`);
    let stream: ReadableStream<LanguageModelV4StreamPart>;
    try {
      const readable = withinCapabilities(messages, this.capabilities);
      ({ stream } = await this.model.doStream(callOptions(readable, options, this.options)));
    } catch (error) {
      if (signal?.aborted) throw new CancelledError(undefined, { cause: error });
      throw new ChatClientError(
        `${this.provider} ${this.modelId}: ${(error as Error).message ?? String(error)}`,
        {
          provider: this.provider,
          cause: error,
        },
      );
    }
    const mapper = new StreamPartMapper();
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read().catch((error: unknown) => {
          if (signal?.aborted) throw new CancelledError(undefined, { cause: error });
          return { done: false as const, value: { type: 'error', error } as LanguageModelV4StreamPart };
        });
        if (done) break;
        const out: AgentResponseUpdate[] = [];
        mapper.map(value, out);
        if (out.length > 0) yield out;
        if (value.type === 'error') break;
      }
      if (!mapper.finished) {
        if (signal?.aborted) throw new CancelledError();
        yield [{ type: 'finish', reason: 'other', rawReason: 'the stream ended without a finish part' }];
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }
}

/** `fromAISDK(openai('gpt-4o-mini'))`: an AI SDK language model as a RAF chat client. */
export function fromAISDK(model: LanguageModelV4, options?: AISDKClientOptions): AISDKChatClient {
  return new AISDKChatClient(model, options);
}
