import {
  type ChatClientRunOptions,
  type ChatMessage,
  contentText,
  type JSONValue,
  type ModelOptions,
  type ToolChoice,
  type ToolDefinition,
} from '@raf/core';
import { responsesContent } from '../openai-compatible/content-parts.js';
import { jsonSchemaResponseFormat } from '../structured/output-format.js';
import type { ReasoningItem } from './wire-types.js';

export interface ResponsesBodyOptions {
  model: string;
  stream: boolean;
  /** Keep the response on the provider's side (`store`); default false: nothing is kept there. */
  store: boolean;
  defaults?: ModelOptions;
  defaultExtraBody?: Record<string, unknown>;
  /** The reasoning items of an earlier answer, by its first tool-call id. */
  reasoningFor?(callId: string): readonly ReasoningItem[] | undefined;
}

type Item = Record<string, unknown>;

/**
 * The conversation as Responses input items: messages by role, an assistant turn's calls as
 * `function_call` items (after the reasoning items that led to them: the API wants those back
 * when nothing is stored), tool results as `function_call_output`.
 */
function inputItems(
  messages: readonly ChatMessage[],
  reasoningFor: ResponsesBodyOptions['reasoningFor'],
): Item[] {
  const items: Item[] = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      const output = responsesContent(message.content);
      items.push({ type: 'function_call_output', call_id: message.toolCallId, output });
      continue;
    }
    const calls = message.role === 'assistant' ? (message.toolCalls ?? []) : [];
    if (calls.length > 0) for (const item of reasoningFor?.(calls[0]!.id) ?? []) items.push({ ...item });
    // Input parts (images, files) are the user's; the other roles go as their text.
    const content =
      message.role === 'user' ? responsesContent(message.content) : contentText(message.content);
    if (content !== '' || calls.length === 0) items.push({ role: message.role, content });
    for (const call of calls)
      items.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments });
  }
  return items;
}

function wireTool(tool: ToolDefinition): Item {
  // `strict: false`: RAF's tool schemas need not meet the strict subset (all fields required).
  return {
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: false,
  };
}

function wireToolChoice(choice: ToolChoice): unknown {
  return typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
}

/**
 * Chat Completions' `response_format` as the Responses API's `text.format`:
 * `{ type: 'json_schema', json_schema: { name, schema, strict } }` becomes
 * `{ type: 'json_schema', name, schema, strict }`.
 */
export function textFormat(responseFormat: JSONValue): JSONValue {
  if (responseFormat === null || typeof responseFormat !== 'object' || Array.isArray(responseFormat))
    return responseFormat;
  const { json_schema: schema, ...rest } = responseFormat as Record<string, JSONValue>;
  return schema !== null && typeof schema === 'object' && !Array.isArray(schema)
    ? { ...rest, ...schema }
    : rest;
}

/**
 * The JSON body of `POST /responses`: client defaults < per-run options < extra body. `store`
 * is false unless asked, and then the reasoning comes back encrypted to be sent again. Options
 * the API lacks (seed, penalties, stop) are not sent.
 */
export function buildResponsesBody(
  messages: readonly ChatMessage[],
  run: ChatClientRunOptions,
  options: ResponsesBodyOptions,
): Record<string, unknown> {
  const modelOptions = { ...options.defaults, ...run.modelOptions };
  const body: Record<string, unknown> = {
    model: options.model,
    input: inputItems(messages, options.reasoningFor),
    stream: options.stream,
    store: options.store,
  };
  if (!options.store) body.include = ['reasoning.encrypted_content'];
  if (modelOptions.temperature !== undefined) body.temperature = modelOptions.temperature;
  if (modelOptions.topP !== undefined) body.top_p = modelOptions.topP;
  if (modelOptions.maxTokens !== undefined) body.max_output_tokens = modelOptions.maxTokens;
  if (modelOptions.reasoningEffort !== undefined) body.reasoning = { effort: modelOptions.reasoningEffort };
  if (modelOptions.responseFormat !== undefined)
    body.text = { format: textFormat(modelOptions.responseFormat) };
  if (modelOptions.output)
    body.text = { format: textFormat(jsonSchemaResponseFormat(modelOptions.output) as JSONValue) };
  if (run.tools && run.tools.length > 0) {
    body.tools = run.tools.map(wireTool);
    if (run.toolChoice !== undefined) body.tool_choice = wireToolChoice(run.toolChoice);
    if (run.parallelToolCalls !== undefined) body.parallel_tool_calls = run.parallelToolCalls;
  }
  Object.assign(body, options.defaultExtraBody, run.extraBody);
  return body;
}
