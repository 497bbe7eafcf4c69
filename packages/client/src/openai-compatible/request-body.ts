import type { ChatClientRunOptions, ChatMessage, ModelOptions, ToolChoice, ToolDefinition } from '@raf/core';

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
