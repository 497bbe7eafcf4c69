import {
  assistantMessage,
  type ChatMessage,
  ConfigError,
  filePart,
  type IChatClient,
  imagePart,
  textPart,
  toolMessage,
  userMessage,
} from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createChatClient } from '../providers.js';
import {
  type MockModelServer,
  startMockAnthropicServer,
  startMockModelServer,
  startMockResponsesServer,
} from '../testing/mock-server.js';
import { drain } from '../testing/test-helpers.js';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const PNG_B64 = Buffer.from(PNG).toString('base64');
const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj <<>> endobj\n%%EOF\n');
const PDF_B64 = Buffer.from(PDF).toString('base64');

/** A user turn with text, an image by bytes, an image by URL and a PDF. */
const attached: ChatMessage = userMessage([
  textPart('What is in these?'),
  imagePart(PNG, 'image/png'),
  imagePart('https://example.com/cat.jpg'),
  filePart(PDF, 'application/pdf', 'report.pdf'),
]);

let server: MockModelServer | undefined;
let client: (IChatClient & { close(): Promise<void> }) | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

describe('content parts on each wire format', () => {
  it('Chat Completions: image_url parts (data URL and URL) and a file part', async () => {
    server = await startMockModelServer({ turns: [{ text: 'a chart' }] });
    client = createChatClient({
      provider: 'openai',
      model: 'gpt-4o-mini',
      baseURL: server.baseURL,
      apiKey: 'k',
    });
    await drain(client.run([attached]));
    const body = server.requests[0]!.body as { messages: unknown[] };
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_B64}` } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          {
            type: 'file',
            file: { filename: 'report.pdf', file_data: `data:application/pdf;base64,${PDF_B64}` },
          },
        ],
      },
    ]);
  });

  it('Chat Completions: a tool result image follows the run of tool results as a user message', async () => {
    server = await startMockModelServer({ turns: [{ text: 'ok' }] });
    client = createChatClient({ provider: 'openai', model: 'gpt-4o', baseURL: server.baseURL, apiKey: 'k' });
    const calls = [
      { id: 'c1', name: 'read_file', arguments: '{"path":"a.png"}' },
      { id: 'c2', name: 'read_file', arguments: '{"path":"b.txt"}' },
    ];
    await drain(
      client.run([
        userMessage('look'),
        assistantMessage('', calls),
        { ...toolMessage('', 'c1'), content: [textPart('{"ok":true}'), imagePart(PNG, 'image/png')] },
        toolMessage('{"ok":true,"data":"hi"}', 'c2'),
      ]),
    );
    const body = server.requests[0]!.body as { messages: Record<string, unknown>[] };
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(body.messages[2]).toEqual({ role: 'tool', content: '{"ok":true}', tool_call_id: 'c1' });
    expect(body.messages[4]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Attached by tool call c1:' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_B64}` } },
      ],
    });
  });

  it('Responses: input_text, input_image and input_file items', async () => {
    server = await startMockResponsesServer({ turns: [{ text: 'a chart' }] });
    client = createChatClient({
      provider: 'openai',
      apiType: 'responses',
      model: 'gpt-5-mini',
      baseURL: server.baseURL,
      apiKey: 'k',
    });
    await drain(client.run([attached]));
    const body = server.requests[0]!.body as { input: unknown[] };
    expect(body.input).toEqual([
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'What is in these?' },
          { type: 'input_image', image_url: `data:image/png;base64,${PNG_B64}` },
          { type: 'input_image', image_url: 'https://example.com/cat.jpg' },
          { type: 'input_file', filename: 'report.pdf', file_data: `data:application/pdf;base64,${PDF_B64}` },
        ],
      },
    ]);
  });

  it('Anthropic: image blocks (base64 and URL), a document block, images inside a tool result', async () => {
    server = await startMockAnthropicServer({ turns: [{ text: 'a chart' }, { text: 'ok' }] });
    client = createChatClient({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      baseURL: server.baseURL,
      apiKey: 'k',
      modelOptions: { cache: false },
    });
    await drain(client.run([attached]));
    const body = server.requests[0]!.body as { messages: unknown[] };
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_B64 } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          {
            type: 'document',
            title: 'report.pdf',
            source: { type: 'base64', media_type: 'application/pdf', data: PDF_B64 },
          },
        ],
      },
    ]);

    await drain(
      client.run([
        userMessage('look'),
        assistantMessage('', [{ id: 'c1', name: 'read_file', arguments: '{}' }]),
        { ...toolMessage('', 'c1'), content: [textPart('{"ok":true}'), imagePart(PNG, 'image/png')] },
      ]),
    );
    const second = server.requests[1]!.body as { messages: { content: unknown }[] };
    expect(second.messages[2]!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'c1',
        content: [
          { type: 'text', text: '{"ok":true}' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_B64 } },
        ],
      },
    ]);
  });

  it('a model without the capability fails before any request, naming the model and the setting', async () => {
    server = await startMockModelServer({ turns: [{ text: 'never' }] });
    client = createChatClient({
      provider: 'deepseek',
      model: 'deepseek-chat',
      baseURL: server.baseURL,
      apiKey: 'k',
    });
    const error = await drain(client.run([attached])).catch((e: unknown) => e);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(
      /deepseek-chat.*does not take images.*capabilities\.images/,
    );
    expect(server.requests).toHaveLength(0);

    // Images yes, files no: the PDF is refused, the request still not sent.
    await client.close();
    client = createChatClient({
      provider: 'custom',
      model: 'local-vision',
      baseURL: server.baseURL,
      capabilities: { images: true },
    });
    const fileError = await drain(client.run([attached])).catch((e: unknown) => e);
    expect(String((fileError as Error).message)).toMatch(/does not take files.*report\.pdf/);
    expect(server.requests).toHaveLength(0);
  });

  it('plain text messages are sent as strings, unchanged', async () => {
    server = await startMockModelServer({ turns: [{ text: 'ok' }] });
    client = createChatClient({ provider: 'custom', model: 'm', baseURL: server.baseURL });
    await drain(client.run([userMessage([textPart('hi')])]));
    // A text-only part list still needs no capability.
    expect((server.requests[0]!.body as { messages: unknown[] }).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ]);
  });
});
