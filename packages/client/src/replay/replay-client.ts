import { randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  type AgentResponseUpdate,
  CancelledError,
  type ChatClientRunOptions,
  type ChatMessage,
  type IChatClient,
  ScriptError,
} from '@raf/core';
import { loadReplayFile, type ReplayRecord, type ReplayTurn } from './replay-file.js';

export interface ReplayChatClientOptions {
  /** The file the record came from, named in errors. */
  file?: string;
  /** Fail when a call's last message differs from the recorded one (default false). */
  strict?: boolean;
}

function requestOf(messages: readonly ChatMessage[], options: ChatClientRunOptions): ReplayTurn['request'] {
  const last = messages.at(-1);
  return {
    messageCount: messages.length,
    ...(last && { lastMessage: { role: last.role, content: last.content } }),
    tools: (options.tools ?? []).map((tool) => tool.name),
  };
}

/**
 * Plays a recorded session back, turn by turn, so examples and tests run offline
 * (`model.provider: replay`). Asking for more turns than were recorded throws a `ScriptError`.
 */
export class ReplayChatClient implements IChatClient {
  readonly modelId: string;
  readonly provider = 'replay';
  private next = 0;

  constructor(
    private readonly record: ReplayRecord,
    private readonly options: ReplayChatClientOptions = {},
  ) {
    this.modelId = record.model;
  }

  static async fromFile(
    file: string,
    options: Omit<ReplayChatClientOptions, 'file'> & { signal?: AbortSignal } = {},
  ) {
    const { signal, ...rest } = options;
    return new ReplayChatClient(await loadReplayFile(file, signal ? { signal } : {}), { ...rest, file });
  }

  /** Recorded turns not played yet. */
  get remaining(): number {
    return this.record.turns.length - this.next;
  }

  run(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions = {},
  ): AsyncIterable<AgentResponseUpdate> {
    return this.play(messages, options);
  }

  private async *play(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions,
  ): AsyncGenerator<AgentResponseUpdate, void, undefined> {
    const source = this.options.file ?? 'the replay record';
    const turn = this.record.turns[this.next];
    if (!turn) {
      throw new ScriptError(
        `replay: ${source} holds ${this.record.turns.length} turn(s); call #${this.next + 1} has no recorded answer (record the session again with a real model)`,
      );
    }
    const recorded = turn.request.lastMessage;
    const actual = messages.at(-1);
    if (
      this.options.strict &&
      recorded &&
      actual &&
      (recorded.role !== actual.role || recorded.content !== actual.content)
    ) {
      throw new ScriptError(
        `replay: call #${this.next + 1} differs from ${source}: recorded last message ${JSON.stringify(recorded.content)}, got ${JSON.stringify(actual.content)}`,
      );
    }
    this.next++;
    for (const update of turn.updates) {
      if (options.signal?.aborted)
        throw new CancelledError('replay: cancelled', { cause: options.signal.reason });
      yield update;
    }
  }
}

export interface RecordingChatClientOptions {
  /** Written (atomically) after every turn; omit to keep the record in memory only. */
  file?: string;
}

/** Wraps a real client and records each call, for `ReplayChatClient` to play back later. */
export class RecordingChatClient implements IChatClient {
  readonly modelId: string;
  readonly provider: string;
  private readonly record: ReplayRecord;

  constructor(
    readonly innerClient: IChatClient,
    private readonly options: RecordingChatClientOptions = {},
  ) {
    this.modelId = innerClient.modelId;
    this.provider = innerClient.provider ?? 'custom';
    this.record = { version: 1, provider: this.provider, model: this.modelId, turns: [] };
  }

  toRecord(): ReplayRecord {
    return structuredClone(this.record);
  }

  run(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions = {},
  ): AsyncIterable<AgentResponseUpdate> {
    return this.capture(messages, options);
  }

  private async *capture(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions,
  ): AsyncGenerator<AgentResponseUpdate, void, undefined> {
    const turn: ReplayTurn = { request: requestOf(messages, options), updates: [] };
    for await (const update of this.innerClient.run(messages, options)) {
      turn.updates.push(update);
      yield update;
    }
    // Only complete turns are kept: a replay must end every turn with `finish`.
    if (turn.updates.at(-1)?.type !== 'finish') return;
    this.record.turns.push(turn);
    if (this.options.file)
      await writeAtomically(this.options.file, `${JSON.stringify(this.record, null, 2)}\n`);
  }
}

async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${randomUUID()}.tmp`;
  await writeFile(temp, text, 'utf8');
  await rename(temp, file);
}
