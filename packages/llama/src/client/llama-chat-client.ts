import { randomUUID } from 'node:crypto';
import { basename, resolve } from 'node:path';
import {
  type AgentResponseUpdate,
  CancelledError,
  ChatClientError,
  type ChatClientRunOptions,
  type ChatMessage,
  getErrorMessage,
  type IChatClient,
  type ModelMetadata,
  type ModelOptions,
} from '@raf/core';
import { flattenBatches } from '@raf/core/internal';
import type {
  ChatModelFunctions,
  LlamaChatResponse,
  LlamaContext,
  LlamaContextSequence,
} from 'node-llama-cpp';
import { acquireModel, type GpuChoice, type ModelLease } from '../model/model-cache.js';
import { toChatHistory } from './chat-history.js';
import { functionsOf, samplingOf } from './generation-options.js';
import { argumentsOf, finishReasonOf, usageOf } from './response-mapping.js';
import { UpdateChannel } from './update-channel.js';

export interface LlamaChatClientOptions {
  /** The `.gguf` file (relative paths resolve against the current directory). */
  modelPath: string;
  /** The model's name in traces and `inspect`; defaults to the file name without `.gguf`. */
  modelId?: string;
  /** The provider name it reports (`llama`, `gguf`, `local`, `lm`); default `llama`. */
  provider?: string;
  /** `false` (default): the CPU. `true`: the best GPU llama.cpp finds (CUDA, Vulkan, Metal); or name one. */
  useGpu?: GpuChoice;
  /** Tokens of context; default: what fits in memory, up to the model's own length and at most 8192. */
  contextSize?: number;
  /** CPU threads for generation; default: the machine's math cores less one. */
  threads?: number;
  /** Sampling defaults of every request (a request's own `modelOptions` win). */
  modelOptions?: ModelOptions;
  /** Cancels the load. */
  signal?: AbortSignal;
}

/** A local GGUF model behind `IChatClient`: load with `loadLlamaChatClient`, unload with `dispose()`. */
export interface LlamaChatClient extends IChatClient {
  readonly provider: string;
  readonly modelMetadata: ModelMetadata;
  /** The absolute path of the loaded file. */
  readonly modelPath: string;
  /** Ends a running request and unloads the model once no other client of this file holds it. */
  dispose(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const DEFAULT_CONTEXT_MAX = 8192;

/** A model answers once at a time on its one context sequence; requests wait their turn. */
class LocalLlamaClient implements LlamaChatClient {
  readonly modelMetadata: ModelMetadata;
  private readonly sequence: LlamaContextSequence;
  private queue: Promise<void> = Promise.resolve();
  /** The generation under way, if any (it settles soon after an abort, read or not). */
  private active: Promise<void> | undefined;
  private readonly unloading = new AbortController();
  private disposed = false;

  constructor(
    readonly modelId: string,
    readonly provider: string,
    readonly modelPath: string,
    private readonly lease: ModelLease,
    private readonly context: LlamaContext,
    private readonly defaults: ModelOptions,
  ) {
    this.sequence = context.getSequence();
    this.modelMetadata = {
      contextWindowTokens: context.contextSize,
      maxOutputTokens: defaults.maxTokens ?? Math.min(2048, Math.floor(context.contextSize / 4)),
    };
  }

  run(messages: readonly ChatMessage[], options?: ChatClientRunOptions): AsyncIterable<AgentResponseUpdate> {
    return flattenBatches(this.runBatches(messages, options));
  }

  async *runBatches(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions = {},
  ): AsyncGenerator<readonly AgentResponseUpdate[], void, undefined> {
    this.assertLoaded();
    const signal = options.signal;
    if (signal?.aborted) throw this.cancelled(signal.reason);
    const release = await this.turn();
    try {
      this.assertLoaded();
      if (signal?.aborted) throw this.cancelled(signal.reason);
      yield* this.generate(messages, options);
    } finally {
      release();
    }
  }

  private async *generate(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions,
  ): AsyncGenerator<readonly AgentResponseUpdate[], void, undefined> {
    const { LlamaChat } = await import('node-llama-cpp');
    const chat = new LlamaChat({ contextSequence: this.sequence, autoDisposeSequence: false });
    const channel = new UpdateChannel();
    const functions = functionsOf(options.tools, options.toolChoice);
    // From here on nothing throws before the `try` below, whose `finally` removes these.
    const stop = new AbortController();
    const onAbort = () => stop.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    this.unloading.signal.addEventListener('abort', onAbort, { once: true });
    const calls = new Map<number, string>();
    const meter = this.sequence.tokenMeter.getState();
    let outcome: { response: LlamaChatResponse<ChatModelFunctions> } | { error: unknown } | undefined;
    const generation = chat
      .generateResponse(toChatHistory(messages), {
        ...samplingOf(this.defaults, options.modelOptions, this.modelMetadata.maxOutputTokens),
        signal: stop.signal,
        onResponseChunk: (chunk) => {
          if (chunk.text === '') return;
          if (chunk.type === undefined) channel.push({ type: 'text-delta', delta: chunk.text });
          else channel.push({ type: 'reasoning-delta', delta: chunk.text });
        },
        ...(functions && {
          functions,
          documentFunctionParams: true,
          ...(options.parallelToolCalls === false && { maxParallelFunctionCalls: 1 }),
          onFunctionCallParamsChunk: (chunk) => {
            let callId = calls.get(chunk.callIndex);
            if (callId === undefined) {
              callId = newCallId();
              calls.set(chunk.callIndex, callId);
              channel.push({ type: 'tool-call-start', callId, name: chunk.functionName });
            }
            if (chunk.paramsChunk !== '')
              channel.push({ type: 'tool-call-args', callId, delta: chunk.paramsChunk });
          },
        }),
      })
      .then(
        (response) => {
          outcome = { response: response as LlamaChatResponse<ChatModelFunctions> };
        },
        (error: unknown) => {
          outcome = { error };
        },
      )
      .finally(() => channel.wake());
    this.active = generation;
    let started = false;
    try {
      for (;;) {
        const batch = channel.drain();
        if (batch.length > 0) {
          started = true;
          yield batch;
          continue;
        }
        if (outcome) break;
        await channel.wait();
      }
      if ('error' in outcome) {
        if (options.signal?.aborted) throw this.cancelled(options.signal.reason);
        const message = this.unloading.signal.aborted
          ? `${this.label()}: the model was unloaded during the request`
          : `${this.label()}: ${getErrorMessage(outcome.error)}`;
        if (!started) throw new ChatClientError(message, { provider: this.provider, cause: outcome.error });
        yield [
          { type: 'error', code: 'RAF_CHAT_CLIENT', message },
          { type: 'finish', reason: 'other' },
        ];
        return;
      }
      const { response } = outcome;
      const out: AgentResponseUpdate[] = [];
      for (const [index, call] of (response.functionCalls ?? []).entries()) {
        const name = String(call.functionName);
        let callId = calls.get(index);
        if (callId === undefined) {
          callId = newCallId();
          out.push({ type: 'tool-call-start', callId, name });
        }
        const tool = options.tools?.find((t) => t.name === name);
        out.push({ type: 'tool-call-end', callId, name, arguments: argumentsOf(call.params, tool) });
      }
      const usage = usageOf(meter, this.sequence.tokenMeter.getState(), this.sequence.contextTokens.length);
      out.push({ type: 'usage', usage });
      out.push({ type: 'finish', reason: finishReasonOf(response.metadata.stopReason), usage });
      yield out;
    } finally {
      // Also when the consumer stops reading early: the generation ends before the turn is given up.
      if (!outcome) stop.abort();
      await generation;
      options.signal?.removeEventListener('abort', onAbort);
      this.unloading.signal.removeEventListener('abort', onAbort);
      chat.dispose({ disposeSequence: false });
      if (this.active === generation) this.active = undefined;
    }
  }

  /** Waits for the requests before this one; returns the function that lets the next one go. */
  private async turn(): Promise<() => void> {
    let release!: () => void;
    const previous = this.queue;
    this.queue = new Promise<void>((done) => {
      release = done;
    });
    await previous;
    return release;
  }

  private label(): string {
    return `${this.provider} ${this.modelId}`;
  }

  private cancelled(reason: unknown): CancelledError {
    return new CancelledError(`${this.label()} cancelled`, { cause: reason });
  }

  private assertLoaded(): void {
    if (this.disposed)
      throw new ChatClientError(`${this.label()}: the model was unloaded (dispose() was called)`, {
        provider: this.provider,
      });
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.unloading.abort();
    // Not the turn queue: a reader that stopped pulling without `return()` would hold it forever.
    await this.active;
    await this.context.dispose();
    await this.lease.release();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}

function newCallId(): string {
  return `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

/**
 * Loads a GGUF model through node-llama-cpp (once per process: clients of one file share its
 * weights) and creates its context. Fails with a `ChatClientError` naming the file and what
 * llama.cpp said; nothing is downloaded or built.
 */
export async function loadLlamaChatClient(options: LlamaChatClientOptions): Promise<LlamaChatClient> {
  const modelPath = resolve(options.modelPath);
  const provider = options.provider ?? 'llama';
  const lease = await acquireModel({
    modelPath,
    gpu: options.useGpu ?? false,
    ...(options.signal && { signal: options.signal }),
  });
  let context: LlamaContext;
  try {
    context = await lease.model.createContext({
      contextSize: options.contextSize ?? { max: DEFAULT_CONTEXT_MAX },
      // One core stays free for Node's event loop and the rest of the machine: llama.cpp's threads
      // spin while they wait for each other, and on a busy two-core box two of them ran a tiny
      // model 100× slower than one.
      threads: options.threads ?? Math.max(1, lease.llama.cpuMathCores - 1),
      sequences: 1,
      ...(options.signal && { createSignal: options.signal }),
    });
  } catch (error) {
    await lease.release();
    if (options.signal?.aborted) throw new CancelledError('model load cancelled', { cause: error });
    throw new ChatClientError(
      `cannot create a context for the model ${modelPath}: ${getErrorMessage(error)}`,
      {
        provider,
        cause: error,
      },
    );
  }
  const modelId = options.modelId ?? basename(modelPath).replace(/\.gguf$/i, '');
  return new LocalLlamaClient(modelId, provider, modelPath, lease, context, options.modelOptions ?? {});
}
