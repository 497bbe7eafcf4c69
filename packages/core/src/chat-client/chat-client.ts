import type { JSONSchema, JSONValue } from '../json/json.js';
import type { ChatMessage } from '../messages/chat-message.js';
import type { ContentCapabilities } from '../messages/content-part.js';
import type { ToolDefinition } from '../tool/tool.js';
import type { AgentResponseUpdate } from '../updates/agent-response-update.js';

/** Sampling and output options of one request. Unset fields are not sent. */
export interface ModelOptions {
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  stop?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  reasoningEffort?: string;
  responseFormat?: JSONValue;
  /**
   * A structured answer matching this schema, asked for the provider's native way (over
   * `responseFormat`). A model option so it reaches every model call of a tool loop unchanged.
   */
  output?: OutputSchema;
  /**
   * Prompt-cache breakpoints where the provider wants them marked (Anthropic `cache_control`):
   * `'auto'` (the default: the system prompt, the tool list and the last turn), `false` (none), or
   * the places to mark. Providers that cache on their own (OpenAI, DeepSeek) ignore it.
   */
  cache?: false | 'auto' | readonly CacheBreakpoint[];
}

/** A place in a request where a prompt cache may end. */
export type CacheBreakpoint = 'system' | 'tools' | 'lastTurn';

/** A caller's decision on a gated tool call. */
export interface ApprovalResponse {
  callId: string;
  approved: boolean;
  reason?: string;
}

/**
 * A structured answer the model must give (`outputSchema`): each client asks for it the provider's
 * native way (OpenAI `json_schema`, Responses `text.format`, Anthropic a forced tool) and the
 * answer arrives as its JSON text.
 */
export interface OutputSchema {
  /** A name for the schema the provider shows the model (default `output`). */
  name?: string;
  description?: string;
  schema: JSONSchema;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/**
 * What one model request carries: request data only. A tool loop's own state (the live tools, a
 * paused batch, approvals, callbacks) travels in the framework's loop options, never to a model
 * client.
 */
export interface ChatClientRunOptions {
  /** Tools the model may call (definitions only; the tool loop holds the implementations). */
  tools?: readonly ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  signal?: AbortSignal;
  modelOptions?: ModelOptions;
  /** Merged into the request body last (e.g. DeepSeek `thinking`). */
  extraBody?: Record<string, unknown>;
  extraHeaders?: Record<string, string>;
}

export interface ModelMetadata {
  contextWindowTokens: number;
  maxOutputTokens: number;
}

/** Tokens available to the prompt: the context window less the reserved output. */
export function inputBudget(metadata: ModelMetadata): number {
  return Math.max(0, metadata.contextWindowTokens - metadata.maxOutputTokens);
}

/**
 * A model behind one interface. `run` yields updates and ends with a `finish` update; a failure
 * before the first update throws (`ChatClientError`, `CancelledError`); a failure after it is an
 * `error` update followed by `finish { reason: 'other' }`.
 */
export interface IChatClient {
  readonly modelId: string;
  readonly provider?: string;
  readonly modelMetadata?: ModelMetadata;
  /**
   * What the model takes besides text (images, files). A client refuses parts its model does not
   * take before any request; readers (a `read_file` on an image) ask it what to hand back.
   */
  readonly capabilities?: ContentCapabilities;
  /** The client this one decorates, if any. */
  readonly innerClient?: IChatClient;
  run(messages: readonly ChatMessage[], options?: ChatClientRunOptions): AsyncIterable<AgentResponseUpdate>;
  /**
   * Optional: the same updates as `run`, in batches (e.g. one per network read). A pipeline of
   * decorators that all batch pays one async step per batch instead of one per update; read it
   * with `updateBatches(client, …)`, which falls back to `run` when a client does not batch.
   */
  runBatches?(
    messages: readonly ChatMessage[],
    options?: ChatClientRunOptions,
  ): AsyncIterable<readonly AgentResponseUpdate[]>;
}
