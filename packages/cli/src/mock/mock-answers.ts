import type { MockTurn, RecordedRequest, ScriptTurn } from '@raf/client/testing';

/** What `raf mock` answers: a script played in order, an echo, or one call of each offered tool. */
export type MockMode = 'script' | 'echo' | 'tools';

interface WireMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: { function?: { name?: unknown } }[];
}

interface WireTool {
  function?: { name?: unknown; parameters?: unknown };
}

const messagesOf = (request: RecordedRequest): WireMessage[] =>
  Array.isArray(request.body?.messages) ? (request.body.messages as WireMessage[]) : [];

/** The text of a message's content: a string, or the text parts of a list. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part && typeof part === 'object' && 'text' in part ? String(part.text) : ''))
    .join('');
}

function echo(request: RecordedRequest): ScriptTurn {
  const last = messagesOf(request).findLast((m) => m.role === 'user');
  const said = last ? textOf(last.content).trim() : '';
  return { text: said ? `You said: ${said}` : 'You said nothing.' };
}

/** A value the schema accepts, as plain as can be: required properties only, the first enum value. */
export function sampleOf(schema: unknown, name = ''): unknown {
  if (!schema || typeof schema !== 'object') return 'example';
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (s.const !== undefined) return s.const;
  if (s.default !== undefined) return s.default;
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === 'object' || (type === undefined && s.properties)) {
    const properties = (s.properties ?? {}) as Record<string, unknown>;
    const required = Array.isArray(s.required) ? (s.required as string[]) : [];
    return Object.fromEntries(required.map((key) => [key, sampleOf(properties[key], key)]));
  }
  if (type === 'array') return [];
  if (type === 'integer' || type === 'number') return typeof s.minimum === 'number' ? s.minimum : 1;
  if (type === 'boolean') return false;
  if (type === 'null') return null;
  // A path-like name gets a path no project holds: the write and remove tools then touch only it.
  return /path|file/i.test(name) ? 'raf-mock-example.txt' : 'example';
}

function eachToolOnce(request: RecordedRequest): ScriptTurn {
  const offered = (Array.isArray(request.body?.tools) ? (request.body.tools as WireTool[]) : [])
    .map((tool) => ({ name: tool.function?.name, parameters: tool.function?.parameters }))
    .filter((tool): tool is { name: string; parameters: unknown } => typeof tool.name === 'string');
  const called = new Set(
    messagesOf(request).flatMap((m) => (m.tool_calls ?? []).map((call) => String(call.function?.name))),
  );
  // All in one turn: one tool round, whatever the agent's `maxToolRounds`.
  const next = offered.filter((tool) => !called.has(tool.name));
  if (next.length > 0)
    return {
      toolCalls: next.map((tool) => ({ name: tool.name, arguments: sampleOf(tool.parameters) as never })),
    };
  if (offered.length === 0) return { text: 'No tools were offered to call.' };
  return {
    text: `Called each of the ${offered.length} offered tools once: ${offered.map((t) => t.name).join(', ')}.`,
  };
}

/**
 * The answer to one request. A script is played by position in the conversation (the number of
 * assistant messages the request already holds), so every new conversation starts at its first
 * turn and the server can be left running across `raf run`s; past its end it echoes.
 */
export function answerFor(
  mode: MockMode,
  script: readonly ScriptTurn[],
): (request: RecordedRequest) => MockTurn {
  return (request) => {
    if (mode === 'echo') return echo(request);
    if (mode === 'tools') return eachToolOnce(request);
    const position = messagesOf(request).filter((m) => m.role === 'assistant').length;
    return script[position] ?? echo(request);
  };
}

/** One line for the log of what was answered. */
export function describeAnswer(turn: ScriptTurn): string {
  const calls = (turn.toolCalls ?? []).map(
    (c) => `${c.name} ${typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {})}`,
  );
  const text =
    turn.text === undefined
      ? ''
      : JSON.stringify(turn.text.length > 60 ? `${turn.text.slice(0, 59)}…` : turn.text);
  return [text, ...calls.map((c) => `→ ${c}`)].filter(Boolean).join(' ');
}
