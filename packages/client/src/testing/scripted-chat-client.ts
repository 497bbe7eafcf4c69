import {
  type AgentResponseUpdate,
  CancelledError,
  type ChatClientRunOptions,
  type ChatMessage,
  type ContentCapabilities,
  contentText,
  type IChatClient,
  type ModelMetadata,
  ScriptError,
} from '@raf/core';
import { type ScriptTurn, scriptTurnToUpdates } from './script-turn.js';

/** Make the scripted call throw (to test failure paths). */
export interface ScriptedFailure {
  fail: unknown;
}

export type ScriptedAnswer = ScriptTurn | AgentResponseUpdate[] | ScriptedFailure;
export type ScriptedResponse =
  | ScriptedAnswer
  | ((
      messages: readonly ChatMessage[],
      options: ChatClientRunOptions,
      index: number,
    ) => ScriptedAnswer | Promise<ScriptedAnswer>);

export interface ScriptedCall {
  /** A copy of the messages as they were at call time. */
  messages: ChatMessage[];
  options: ChatClientRunOptions;
}

export interface ScriptedChatClientOptions {
  modelId?: string;
  modelMetadata?: ModelMetadata;
  /** What the scripted model takes besides text (none by default). */
  capabilities?: ContentCapabilities;
}

function preview(messages: readonly ChatMessage[]): string {
  const last = messages.at(-1);
  if (!last) return 'no messages';
  const said = contentText(last.content);
  const text = said.length > 80 ? `${said.slice(0, 80)}…` : said;
  return `last message (${last.role}): ${JSON.stringify(text)}`;
}

/**
 * An in-process `IChatClient` that answers from a script and records every call. Running past the
 * end of the script throws a `ScriptError` that says which call had no answer.
 */
export class ScriptedChatClient implements IChatClient {
  readonly modelId: string;
  readonly provider = 'scripted';
  readonly modelMetadata?: ModelMetadata;
  readonly capabilities?: ContentCapabilities;
  readonly calls: ScriptedCall[] = [];
  private readonly script: ScriptedResponse[];

  constructor(script: ScriptedResponse[] = [], options: ScriptedChatClientOptions = {}) {
    this.script = [...script];
    this.modelId = options.modelId ?? 'scripted-model';
    if (options.modelMetadata) this.modelMetadata = options.modelMetadata;
    if (options.capabilities) this.capabilities = options.capabilities;
  }

  enqueue(...responses: ScriptedResponse[]): this {
    this.script.push(...responses);
    return this;
  }

  /** Scripted answers not used yet. */
  get remaining(): number {
    return this.script.length - this.calls.length;
  }

  run(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions = {},
  ): AsyncIterable<AgentResponseUpdate> {
    return this.answer(messages, options);
  }

  private async *answer(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions,
  ): AsyncGenerator<AgentResponseUpdate, void, undefined> {
    const index = this.calls.length;
    this.calls.push({ messages: structuredClone([...messages]), options });
    const entry = this.script[index];
    if (entry === undefined) {
      throw new ScriptError(
        `ScriptedChatClient: script exhausted: ${this.script.length} answer(s) scripted, call #${index + 1} has no answer (${preview(messages)})`,
      );
    }
    const answer = typeof entry === 'function' ? await entry(messages, options, index) : entry;
    if ('fail' in answer) throw answer.fail;
    const updates = Array.isArray(answer) ? answer : scriptTurnToUpdates(answer, index);
    for (const update of updates) {
      if (options.signal?.aborted)
        throw new CancelledError('ScriptedChatClient: cancelled', { cause: options.signal.reason });
      yield update;
    }
  }
}
