import { OpenAICompatibleChatClient } from '@raf/client';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { ATTACHMENT_MAX_BYTES } from '@raf/core';
import { AgentBuilder } from '@raf/framework';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DurableRunHost } from '../runs/durable-runs.js';
import { type Fixture, readEvents, type Served, serve, TOKEN_A } from '../test-support/served-fixture.js';

// `/v1` start-run's `input` as content parts (SPEC §15): a PDF reaches the model as a file part; a
// type no model reads, a part over the cap and a model without the capability are refused.

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read loosely in assertions
type Loose = any;

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n');

let model: MockModelServer;
let clients: OpenAICompatibleChatClient[];
let fixture: Fixture;
let served: Served | undefined;

beforeEach(async () => {
  model = await startMockModelServer({ turns: () => ({ text: 'A report.' }) });
  const reader = new OpenAICompatibleChatClient({
    model: 'reader',
    baseURL: model.baseURL,
    maxRetries: 0,
    capabilities: { files: true },
  });
  const blind = new OpenAICompatibleChatClient({ model: 'text-only', baseURL: model.baseURL, maxRetries: 0 });
  clients = [reader, blind];
  const readerAgent = new AgentBuilder('reader').chatClient(reader).build();
  const blindAgent = new AgentBuilder('blind').chatClient(blind).build();
  fixture = {
    model,
    client: reader,
    calls: [],
    agents: [
      { name: 'reader', agent: async () => readerAgent },
      { name: 'blind', agent: async () => blindAgent },
    ],
    close: async () => {
      for (const client of clients) await client.close();
      await model.close();
    },
  };
});
afterEach(async () => {
  await served?.close();
  served = undefined;
  await fixture.close();
});

const start = (agent: string, body: unknown) =>
  fetch(`${served!.url}/v1/agents/${agent}/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const pdfPart = {
  type: 'file',
  data: PDF.toString('base64'),
  mediaType: 'application/pdf',
  name: 'report.pdf',
};

describe('/v1 start-run with content parts', () => {
  it('a PDF part reaches the model as a file part, after the text', async () => {
    served = await serve(fixture);
    const started = await start('reader', { input: [{ type: 'text', text: 'Summarize it' }, pdfPart] });
    expect(started.status).toBe(201);
    const { runId } = (await started.json()) as Loose;
    const events = await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A);
    expect(events.at(-1)?.data).toMatchObject({ type: 'finish', reason: 'stop' });
    const messages = (model.requests.at(-1)!.body as Loose).messages;
    expect(messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Summarize it' },
        {
          type: 'file',
          file: {
            filename: 'report.pdf',
            file_data: `data:application/pdf;base64,${PDF.toString('base64')}`,
          },
        },
      ],
    });
    // The session keeps the parts: the next turn's history has the file again.
    const session = (await (
      await fetch(`${served.url}/v1/sessions/${(events.at(-1)!.data as Loose).sessionId}`, {
        headers: { authorization: `Bearer ${TOKEN_A}` },
      })
    ).json()) as Loose;
    expect(session.messages[0].content[1]).toMatchObject({ type: 'file', name: 'report.pdf' });
  });

  it('refuses a media type no model reads, a part over the cap, bad base64 and a body past the route limit', async () => {
    served = await serve(fixture);
    const exe = await start('reader', {
      input: [
        { type: 'file', data: 'TVqQAAMAAAAEAAAA', mediaType: 'application/x-msdownload', name: 'a.exe' },
      ],
    });
    expect(exe.status).toBe(400);
    expect(((await exe.json()) as Loose).error.message).toMatch(/input/);
    const big = await start('reader', {
      input: [{ ...pdfPart, data: Buffer.alloc(ATTACHMENT_MAX_BYTES + 1).toString('base64') }],
    });
    expect(big.status).toBe(400);
    expect(((await big.json()) as Loose).error.message).toMatch(/over the 20971520-byte cap/);
    const garbled = await start('reader', { input: [{ ...pdfPart, data: 'not base64!' }] });
    expect(garbled.status).toBe(400);
    expect((await start('reader', { input: [] })).status).toBe(400);
    // Larger than two files at the cap: refused unread (413), whatever it holds.
    const huge = await start('reader', { input: 'x'.repeat(60 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    // A plain text body past the API's other limit is still text: the string's own maximum.
    expect((await start('reader', { input: 'x'.repeat(2_000_000) })).status).toBe(400);
    expect(model.requests).toHaveLength(0);
  });

  it('a model without the capability fails the run with the clear error, before any request', async () => {
    served = await serve(fixture);
    const started = await start('blind', { input: [{ type: 'text', text: 'Read it' }, pdfPart] });
    expect(started.status).toBe(201);
    const { runId } = (await started.json()) as Loose;
    const events = await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A);
    const error = events.find((e) => e.data.type === 'error')?.data as Loose;
    expect(error.message).toMatch(/text-only.*does not take files.*capabilities\.files/);
    expect(model.requests).toHaveLength(0);
  });

  it('OpenAPI describes the input as text or parts, from the same zod schema', async () => {
    served = await serve(fixture);
    const doc = (await (
      await fetch(`${served.url}/v1/openapi.json`, { headers: { authorization: `Bearer ${TOKEN_A}` } })
    ).json()) as Loose;
    const input = doc.components.schemas.StartRun.properties.input;
    expect(JSON.stringify(input)).toContain('#/components/schemas/ContentPart');
    expect(JSON.stringify(doc.components.schemas.ContentPart)).toContain('application/pdf');
  });

  it('with --durable, the parts go to the durable run as they came (its recorded input)', async () => {
    const started: unknown[] = [];
    const durable: DurableRunHost = {
      handles: () => true,
      start: async (spec) => {
        started.push(spec.input);
      },
      approve: async () => undefined,
      cancel: async () => undefined,
      cancelled: async () => false,
    };
    served = await serve(fixture, 'memory:', { durable });
    const response = await start('reader', { input: [{ type: 'text', text: 'Read it.' }, pdfPart] });
    expect(response.status, await response.clone().text()).toBe(201);
    expect(started).toEqual([
      expect.objectContaining({ role: 'user', content: [{ type: 'text', text: 'Read it.' }, pdfPart] }),
    ]);
  });
});
