import type { ChatClientRunOptions, ChatMessage, ModelOptions, ToolChoice, ToolDefinition } from '@raf/core';
import { messageJson, toolsJson } from './wire-json-cache.js';

export interface RequestBodyOptions {
  model: string;
  stream: boolean;
  /** Send `reasoning_content` back on assistant tool-call messages (DeepSeek thinking mode needs it). */
  echoReasoning: boolean;
  defaults?: ModelOptions;
  defaultExtraBody?: Record<string, unknown>;
}

function toWire(message: ChatMessage, echoReasoning: boolean): Record<string, unknown> {
  const wire: Record<string, unknown> = { role: message.role, content: message.content };
  if (message.name !== undefined) wire.name = message.name;
  if (message.role === 'assistant' && message.toolCalls && message.toolCalls.length > 0) {
    if (message.content === '') wire.content = null;
    wire.tool_calls = message.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
    if (echoReasoning && message.reasoning) wire.reasoning_content = message.reasoning;
  }
  if (message.role === 'tool') wire.tool_call_id = message.toolCallId;
  return wire;
}

function wireTool(tool: ToolDefinition): unknown {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

function wireToolChoice(choice: ToolChoice): unknown {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

// ModelOptions field → wire field. Unset fields are not sent.
const OPTION_FIELDS: [keyof ModelOptions, string][] = [
  ['temperature', 'temperature'],
  ['maxTokens', 'max_tokens'],
  ['topP', 'top_p'],
  ['stop', 'stop'],
  ['seed', 'seed'],
  ['presencePenalty', 'presence_penalty'],
  ['frequencyPenalty', 'frequency_penalty'],
  ['reasoningEffort', 'reasoning_effort'],
  ['responseFormat', 'response_format'],
];

/** The JSON body of `POST /chat/completions`: client defaults < per-run options < extra body. */
export function buildRequestBody(
  messages: readonly ChatMessage[],
  run: ChatClientRunOptions,
  options: RequestBodyOptions,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: options.model,
    messages: messages.map((m) => toWire(m, options.echoReasoning)),
    stream: options.stream,
  };
  if (options.stream) body.stream_options = { include_usage: true };
  const modelOptions = { ...options.defaults, ...run.modelOptions };
  for (const [key, wire] of OPTION_FIELDS) {
    if (modelOptions[key] !== undefined) body[wire] = modelOptions[key];
  }
  if (run.tools && run.tools.length > 0) {
    body.tools = run.tools.map(wireTool);
    if (run.toolChoice !== undefined) body.tool_choice = wireToolChoice(run.toolChoice);
    if (run.parallelToolCalls !== undefined) body.parallel_tool_calls = run.parallelToolCalls;
  }
  Object.assign(body, options.defaultExtraBody, run.extraBody);
  return body;
}

/**
 * `JSON.stringify(buildRequestBody(…))`, built from each message's cached JSON: the tool loop
 * resends the whole conversation every round, and only the new messages are serialized.
 */
export function serializeRequestBody(
  messages: readonly ChatMessage[],
  run: ChatClientRunOptions,
  options: RequestBodyOptions,
): string {
  // An extra body may replace any field: build the object and let it.
  if (options.defaultExtraBody || run.extraBody)
    return JSON.stringify(buildRequestBody(messages, run, options));
  let json = `{"model":${JSON.stringify(options.model)},"messages":[`;
  for (let i = 0; i < messages.length; i++) {
    if (i > 0) json += ',';
    json += messageJson(messages[i]!, options.echoReasoning, toWire);
  }
  json += options.stream ? '],"stream":true,"stream_options":{"include_usage":true}' : '],"stream":false';
  if (options.defaults || run.modelOptions) {
    const modelOptions = { ...options.defaults, ...run.modelOptions };
    for (const [key, wire] of OPTION_FIELDS) {
      const value = modelOptions[key];
      if (value !== undefined) json += `,"${wire}":${JSON.stringify(value)}`;
    }
  }
  if (run.tools && run.tools.length > 0) {
    json += `,"tools":${toolsJson(run.tools, wireTool)}`;
    if (run.toolChoice !== undefined)
      json += `,"tool_choice":${JSON.stringify(wireToolChoice(run.toolChoice))}`;
    if (run.parallelToolCalls !== undefined) json += `,"parallel_tool_calls":${run.parallelToolCalls}`;
  }
  return `${json}}`;
}
