import { fileURLToPath } from 'node:url';
import { ReplayChatClient, ScriptedChatClient } from '@raf/client/testing';
import { describe, expect, it } from 'vitest';
import { runAgentQuickstart } from './agent.js';
import { runQuickstart } from './quickstart.js';

const recording = fileURLToPath(new URL('./session.replay.json', import.meta.url));

describe('quickstart example', () => {
  it('runs offline on the recorded session: one tool call, then the answer', async () => {
    let output = '';
    const answer = await runQuickstart({
      client: await ReplayChatClient.fromFile(recording),
      write: (t) => (output += t),
    });
    expect(answer).toBe('It is sunny and 18°C in Tokyo right now.');
    expect(output).toBe(
      '→ get_weather {"city":"Tokyo"} → {"ok":true,"data":{"city":"Tokyo","forecast":"sunny, 18°C"}}\n' +
        'It is sunny and 18°C in Tokyo right now.\n',
    );
  });

  it('sends the tool result back to the model right after its tool call', async () => {
    const client = new ScriptedChatClient([
      { toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Atlantis' } }] },
      { text: 'No idea.' },
    ]);
    await runQuickstart({ client, input: 'Weather in Atlantis?', write: () => {} });
    expect(client.calls[1]?.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Atlantis"}' }],
      },
      {
        role: 'tool',
        content: '{"ok":false,"error":"No forecast for Atlantis"}',
        toolCallId: 'c1',
        source: 'toolResult',
      },
    ]);
  });
});

describe('the same agent on @raf/framework', () => {
  it('runs offline on the same recording', async () => {
    let output = '';
    const answer = await runAgentQuickstart({
      client: await ReplayChatClient.fromFile(recording),
      write: (t) => (output += t),
    });
    expect(answer).toBe('It is sunny and 18°C in Tokyo right now.');
    expect(output).toBe(
      '→ get_weather → {"ok":true,"data":{"city":"Tokyo","forecast":"sunny, 18°C"}}\n' +
        'It is sunny and 18°C in Tokyo right now.\n',
    );
  });

  it('hands the typed run context to the tool, and prepareStep takes the tools away after one round', async () => {
    const client = new ScriptedChatClient([
      { toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Snowy, 27°F.' },
    ]);
    const answer = await runAgentQuickstart({ client, input: 'Oslo?', units: 'fahrenheit', write: () => {} });
    expect(answer).toBe('Snowy, 27°F.');
    expect(client.calls[1]?.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: '{"ok":true,"data":{"city":"Oslo","forecast":"snow, 27°F"}}',
    });
    expect(client.calls[0]?.options?.tools?.map((t) => t.name)).toEqual(['get_weather']);
    expect(client.calls[1]?.options?.tools).toEqual([]);
  });
});
