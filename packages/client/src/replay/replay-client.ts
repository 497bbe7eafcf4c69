import {
  type AgentResponseUpdate,
  CancelledError,
  type ChatClientRunOptions,
  type ChatMessage,
  type IChatClient,
  ScriptError,
} from '@raf/core';
import { loadReplayFile, type ReplayRecord } from './replay-file.js';

export interface ReplayChatClientOptions {
  /** The file the record came from, named in errors. */
  file?: string;
  /** Fail when a call's last message differs from the recorded one (default false). */
  strict?: boolean;
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
