import {
  type ChatClientRunOptions,
  type ChatMessage,
  contentText,
  type ModelOptions,
  type ToolChoice,
  type ToolDefinition,
} from '@raf/core';
import { jsonSchemaResponseFormat } from '../structured/output-format.js';
import { chatContent, chatPart, mediaParts } from './content-parts.js';

export interface RequestBodyOptions {
  model: string;
  stream: boolean;
  /** Send `reasoning_content` back on assistant tool-call messages (DeepSeek thinking mode needs it). */
  echoReasoning: boolean;
  defaults?: ModelOptions;
  defaultExtraBody?: Record<string, unknown>;
}

function toWire(message: ChatMessage, echoReasoning: boolean): Record<string, unknown> {
  // Only user messages take parts in Chat Completions; the others go as their text.
  const content = message.role === 'user' ? chatContent(message.content) : contentText(message.content);
  const wire: Record<string, unknown> = { role: message.role, content };
  if (message.name !== undefined) wire.name = message.name;
  if (message.role === 'assistant' && message.toolCalls && message.toolCalls.length > 0) {
    if (content === '') wire.content = null;
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

/**
 * Tool messages take text only here, so the images or files a tool returned (a read_file of a
 * picture) follow the run of tool results as one user message naming the calls; the results must
 * stay together right after the assistant turn that asked for them.
 */
function wireMessages(messages: readonly ChatMessage[], echoReasoning: boolean): Record<string, unknown>[] {
  const wire: Record<string, unknown>[] = [];
  let pending: Record<string, unknown>[] = [];
  const flush = () => {
    if (pending.length > 0) wire.push({ role: 'user', content: pending });
    pending = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flush();
    wire.push(toWire(message, echoReasoning));
    const media = message.role === 'tool' ? mediaParts(message.content) : [];
    if (media.length > 0) {
      pending.push({ type: 'text', text: `Attached by tool call ${message.toolCallId ?? ''}:` });
      pending.push(...media.map(chatPart));
    }
  }
  flush();
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
    messages: wireMessages(messages, options.echoReasoning),
    stream: options.stream,
  };
  if (options.stream) body.stream_options = { include_usage: true };
  const modelOptions = { ...options.defaults, ...run.modelOptions };
  for (const [key, wire] of OPTION_FIELDS) {
    if (modelOptions[key] !== undefined) body[wire] = modelOptions[key];
  }
  if (modelOptions.output) body.response_format = jsonSchemaResponseFormat(modelOptions.output);
  if (run.tools && run.tools.length > 0) {
    body.tools = run.tools.map(wireTool);
    if (run.toolChoice !== undefined) body.tool_choice = wireToolChoice(run.toolChoice);
    if (run.parallelToolCalls !== undefined) body.parallel_tool_calls = run.parallelToolCalls;
  }
  Object.assign(body, options.defaultExtraBody, run.extraBody);
  return body;
}
