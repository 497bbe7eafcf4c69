import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectAgentResponse, ScriptError, userMessage, ValidationError } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenAICompatibleChatClient } from '../openai-compatible/openai-compatible-client.js';
import { startMockModelServer } from '../testing/mock-server.js';
import { ScriptedChatClient } from '../testing/scripted-chat-client.js';
import { drain, thrown } from '../testing/test-helpers.js';
import { RecordingChatClient } from './recording-client.js';
import { ReplayChatClient } from './replay-client.js';
import { loadReplayFile } from './replay-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-replay-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('record and replay', () => {
  it('records a real HTTP session to a file and plays it back offline, update for update', async () => {
    const server = await startMockModelServer({
      turns: [
        { toolCalls: [{ id: 'c1', name: 'list_files', arguments: { path: '.' } }] },
        { text: 'Two files.' },
      ],
    });
    const real = new OpenAICompatibleChatClient({ model: 'm', baseURL: server.baseURL });
    const file = join(dir, 'session.json');
    const recorder = new RecordingChatClient(real, { file });
    const live1 = await drain(
      recorder.run([userMessage('list')], {
        tools: [{ name: 'list_files', description: '', parameters: {} }],
      }),
    );
    const live2 = await drain(
      recorder.run([userMessage('list'), { role: 'tool', content: '{"ok":true}', toolCallId: 'c1' }]),
    );
    await real.close();
    await server.close();

    const record = await loadReplayFile(file);
    expect(record.turns.map((t) => t.request)).toEqual([
      { messageCount: 1, lastMessage: { role: 'user', content: 'list' }, tools: ['list_files'] },
      { messageCount: 2, lastMessage: { role: 'tool', content: '{"ok":true}' }, tools: [] },
    ]);
    const replay = await ReplayChatClient.fromFile(file);
    expect(replay.modelId).toBe('m');
    expect(await drain(replay.run([userMessage('list')]))).toEqual(live1);
    expect(await drain(replay.run([userMessage('list')]))).toEqual(live2);
    const error = await thrown(() => drain(replay.run([userMessage('more')])));
    expect(ScriptError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(
      `replay: ${file} holds 2 turn(s); call #3 has no recorded answer`,
    );
  });

  it('in strict mode refuses a call that differs from the recording', async () => {
    const replay = new ReplayChatClient(
      {
        version: 1,
        model: 'm',
        turns: [
          {
            request: { messageCount: 1, lastMessage: { role: 'user', content: 'hi' }, tools: [] },
            updates: [{ type: 'finish', reason: 'stop' }],
          },
        ],
      },
      { strict: true },
    );
    const error = await thrown(() => drain(replay.run([userMessage('bye')])));
    expect((error as Error).message).toContain('recorded last message "hi", got "bye"');
  });

  it('reports a broken replay file with its name and the bad field', async () => {
    const file = join(dir, 'bad.json');
    await writeFile(
      file,
      JSON.stringify({
        version: 1,
        model: 'm',
        turns: [{ request: { messageCount: 1 }, updates: [{ type: 'text-delta', delta: 'x' }] }],
      }),
    );
    const error = await thrown(() => loadReplayFile(file));
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `replay file ${file} is not a valid replay file: turns.0.updates: the last update of a turn must be "finish"`,
    );
    await writeFile(file, '{oops');
    expect(((await thrown(() => loadReplayFile(file))) as Error).message).toMatch(
      /^replay file .* is not valid JSON/,
    );
    expect(((await thrown(() => loadReplayFile(join(dir, 'missing.json')))) as Error).message).toMatch(
      /^cannot read replay file/,
    );
  });

  it('keeps the record in memory when no file is given', async () => {
    const recorder = new RecordingChatClient(new ScriptedChatClient([{ text: 'hello' }]));
    expect((await collectAgentResponse(recorder.run([userMessage('x')]))).text).toBe('hello');
    expect(recorder.toRecord().turns).toHaveLength(1);
    expect(await readFile(join(dir, 'none.json'), 'utf8').catch(() => 'absent')).toBe('absent');
  });
});
