import {
  type CacheBreakpoint,
  type ChatClientRunOptions,
  type ChatMessage,
  contentText,
  type ModelOptions,
  safeParseToolResult,
  type ToolChoice,
  type ToolDefinition,
} from '@raf/core';
import { OUTPUT_TOOL_NAME, outputTool } from '../structured/output-format.js';
import { anthropicContent } from './content-blocks.js';
import type { ThinkingBlock } from './wire-types.js';

export interface MessagesBodyOptions {
  model: string;
  stream: boolean;
  /** `max_tokens` when the model options set none (the API requires it). */
  maxTokens: number;
  defaults?: ModelOptions;
  defaultExtraBody?: Record<string, unknown>;
  /** The signed thinking blocks of an earlier answer, by its first tool-call id. */
  thinkingFor?(callId: string): readonly ThinkingBlock[] | undefined;
}

type Block = Record<string, unknown>;
interface WireMessage {
  role: 'user' | 'assistant';
  content: string | Block[];
}

function blocksOf(content: string | Block[]): Block[] {
  if (typeof content !== 'string') return content;
  return content === '' ? [] : [{ type: 'text', text: content }];
}

/** The API wants an object; a model that wrote broken arguments was already told so by the tool loop. */
function toolInput(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

function assistantContent(
  message: ChatMessage,
  thinkingFor: MessagesBodyOptions['thinkingFor'],
): string | Block[] | undefined {
  const calls = message.toolCalls ?? [];
  if (calls.length === 0) return message.content === '' ? undefined : anthropicContent(message.content);
  const blocks: Block[] = [...(thinkingFor?.(calls[0]!.id) ?? [])];
  blocks.push(...blocksOf(anthropicContent(message.content)));
  for (const call of calls) {
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call.arguments) });
  }
  return blocks;
}

function toolResult(message: ChatMessage): Block {
  // A tool's image (a read_file of a picture) rides in the result's own blocks, which take images.
  const block: Block = {
    type: 'tool_result',
    tool_use_id: message.toolCallId,
    content: anthropicContent(message.content),
  };
  const parsed = safeParseToolResult(contentText(message.content));
  if (parsed.success && !parsed.value.ok) block.is_error = true;
  return block;
}

/**
 * System messages go to the top-level `system`; tool results become `tool_result` blocks of a
 * user message. Two messages of one role in a row are merged into one (tool results and the
 * user text after them included), so the roles alternate as the API expects.
 */
function toWire(
  messages: readonly ChatMessage[],
  thinkingFor: MessagesBodyOptions['thinkingFor'],
): { system: string[]; wire: WireMessage[] } {
  const system: string[] = [];
  const wire: WireMessage[] = [];
  const append = (role: WireMessage['role'], content: string | Block[]) => {
    const last = wire.at(-1);
    if (last?.role === role) last.content = [...blocksOf(last.content), ...blocksOf(content)];
    else wire.push({ role, content });
  };
  for (const message of messages) {
    if (message.role === 'system') system.push(contentText(message.content));
    else if (message.role === 'user') append('user', anthropicContent(message.content));
    else if (message.role === 'tool') append('user', [toolResult(message)]);
    else {
      const content = assistantContent(message, thinkingFor);
      if (content !== undefined) append('assistant', content);
    }
  }
  return { system, wire };
}

function wireTool(tool: ToolDefinition): Block {
  return { name: tool.name, description: tool.description, input_schema: tool.parameters };
}

function wireToolChoice(choice: ToolChoice | undefined, parallel: boolean | undefined): Block | undefined {
  let wire: Block | undefined;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'auto') wire = { type: 'auto' };
  else if (choice === 'required') wire = { type: 'any' };
  else if (choice !== undefined) wire = { type: 'tool', name: choice.name };
  if (parallel === false) wire = { type: 'auto', ...wire, disable_parallel_tool_use: true };
  return wire;
}

/**
 * With an output schema the model must end by calling the output tool: alone, that tool is forced;
 * beside the agent's tools any tool call is required (it calls tools, then answers with the output
 * tool); a named tool choice stays.
 */
function outputToolChoice(choice: ToolChoice | undefined, otherTools: boolean): Block {
  if (choice !== undefined && typeof choice === 'object') return { type: 'tool', name: choice.name };
  if (!otherTools || choice === 'none') return { type: 'tool', name: OUTPUT_TOOL_NAME };
  return { type: 'any' };
}

const EPHEMERAL = { type: 'ephemeral' } as const;
const ALL: readonly CacheBreakpoint[] = ['system', 'tools', 'lastTurn'];

/** `options.cache`: `auto` (default) marks the system prompt, the tools and the last turn. */
function breakpoints(cache: ModelOptions['cache']): ReadonlySet<CacheBreakpoint> {
  if (cache === false) return new Set();
  return new Set(cache === undefined || cache === 'auto' ? ALL : cache);
}

/**
 * The last block of the last message ends the cached prefix: the next round (the same history
 * plus one more turn) reads everything up to it from the cache.
 */
function markLastTurn(wire: WireMessage[]): void {
  const last = wire.at(-1);
  if (!last) return;
  const blocks = blocksOf(last.content);
  const end = blocks.at(-1);
  if (!end) return;
  blocks[blocks.length - 1] = { ...end, cache_control: EPHEMERAL };
  last.content = blocks;
}

/**
 * The JSON body of `POST /v1/messages`: client defaults < per-run options < extra body. Model
 * options the API lacks (seed, penalties, reasoningEffort, responseFormat) are not sent; use
 * `extraBody` for Anthropic's own (`thinking`, `top_k`, `metadata`).
 */
export function buildMessagesBody(
  messages: readonly ChatMessage[],
  run: ChatClientRunOptions,
  options: MessagesBodyOptions,
): Record<string, unknown> {
  const modelOptions = { ...options.defaults, ...run.modelOptions };
  const { system, wire } = toWire(messages, options.thinkingFor);
  const body: Record<string, unknown> = {
    model: options.model,
    max_tokens: modelOptions.maxTokens ?? options.maxTokens,
  };
  const marks = breakpoints(modelOptions.cache);
  if (system.length > 0) {
    const text = system.join('\n\n');
    body.system = marks.has('system') ? [{ type: 'text', text, cache_control: EPHEMERAL }] : text;
  }
  if (marks.has('lastTurn')) markLastTurn(wire);
  body.messages = wire;
  body.stream = options.stream;
  if (modelOptions.temperature !== undefined) body.temperature = modelOptions.temperature;
  if (modelOptions.topP !== undefined) body.top_p = modelOptions.topP;
  if (modelOptions.stop !== undefined) body.stop_sequences = modelOptions.stop;
  const tools = (run.tools ?? []).map(wireTool);
  // Structured output through a forced tool: the answer is its input (mapped back to text).
  if (modelOptions.output) tools.push(outputTool(modelOptions.output));
  if (tools.length > 0) {
    // The tool list comes first in Anthropic's cache order: a mark on its last tool caches them all.
    if (marks.has('tools')) tools[tools.length - 1] = { ...tools.at(-1), cache_control: EPHEMERAL };
    body.tools = tools;
    const choice = modelOptions.output
      ? outputToolChoice(run.toolChoice, (run.tools ?? []).length > 0)
      : wireToolChoice(run.toolChoice, run.parallelToolCalls);
    if (choice !== undefined) body.tool_choice = choice;
  }
  Object.assign(body, options.defaultExtraBody, run.extraBody);
  return body;
}
