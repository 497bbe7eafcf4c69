import { randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  type AgentResponseUpdate,
  type ChatClientRunOptions,
  type ChatMessage,
  contentText,
  type IChatClient,
} from '@raf/core';
import type { ReplayRecord, ReplayTurn } from './replay-file.js';

function requestOf(messages: readonly ChatMessage[], options: ChatClientRunOptions): ReplayTurn['request'] {
  const last = messages.at(-1);
  return {
    messageCount: messages.length,
    ...(last && { lastMessage: { role: last.role, content: contentText(last.content) } }),
    tools: (options.tools ?? []).map((tool) => tool.name),
  };
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

  get capabilities() {
    return this.innerClient.capabilities;
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
