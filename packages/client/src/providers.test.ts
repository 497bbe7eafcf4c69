import { ConfigError, userMessage } from '@raf/core';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicChatClient } from './anthropic/anthropic-client.js';
import { OpenAICompatibleChatClient } from './openai-compatible/openai-compatible-client.js';
import { missingKeyProblem } from './provider-defaults.js';
import {
  createAgnesClient,
  createAnthropicClient,
  createChatClient,
  createCustomClient,
  createDeepSeekClient,
  createOpenAIClient,
  PROVIDER_BASE_URLS,
} from './providers.js';
import {
  type MockModelServer,
  startMockAnthropicServer,
  startMockModelServer,
} from './testing/mock-server.js';
import { drain } from './testing/test-helpers.js';

let server: MockModelServer | undefined;
const saved = { ...process.env };
afterEach(async () => {
  process.env = { ...saved };
  await server?.close();
  server = undefined;
});

describe('providers', () => {
  it('use the documented base URLs and environment keys', () => {
    process.env.OPENAI_API_KEY = 'from-env';
    const openai = createOpenAIClient({ model: 'gpt-4o-mini' });
    expect(openai.provider).toBe('openai');
    expect(openai.modelId).toBe('gpt-4o-mini');
    expect(createDeepSeekClient({ model: 'deepseek-chat' }).provider).toBe('deepseek');
    expect(
      createChatClient({ provider: 'custom', model: 'llama3', baseURL: 'http://127.0.0.1:11434/v1' })
        .provider,
    ).toBe('custom');
    expect(PROVIDER_BASE_URLS).toEqual({
      openai: 'https://api.openai.com/v1',
      deepseek: 'https://api.deepseek.com',
      agnes: 'https://apihub.agnes-ai.com/v1',
      anthropic: 'https://api.anthropic.com',
    });
  });

  it('picks the Anthropic client for anthropic and the OpenAI-compatible one for agnes', () => {
    const anthropic = createChatClient({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(anthropic).toBeInstanceOf(AnthropicChatClient);
    expect(anthropic.provider).toBe('anthropic');
    const agnes = createChatClient({ provider: 'agnes', model: 'agnes-1.5-pro' });
    expect(agnes).toBeInstanceOf(OpenAICompatibleChatClient);
    expect(agnes.provider).toBe('agnes');
    expect(createAnthropicClient({ model: 'c' })).toBeInstanceOf(AnthropicChatClient);
  });

  it('createOpenAIClient (and createChatClient for openai) dials OPENAI_BASE_URL; no other provider follows it', async () => {
    server = await startMockModelServer({ turns: [{ text: 'one' }, { text: 'two' }] });
    process.env.OPENAI_BASE_URL = server.baseURL;
    process.env.OPENAI_API_KEY = 'sk-openai';
    process.env.DEEPSEEK_API_KEY = 'sk-deepseek-secret';
    process.env.ANTHROPIC_API_KEY = 'sk-ant-secret';
    const openai = createOpenAIClient({ model: 'gpt-4o-mini' });
    await drain(openai.run([userMessage('x')]));
    await openai.close();
    const viaFactory = createChatClient({ model: 'gpt-4o-mini' });
    await drain(viaFactory.run([userMessage('x')]));
    await viaFactory.close();
    expect(server.requests.map((r) => [r.path, r.headers.authorization])).toEqual([
      ['/v1/chat/completions', 'Bearer sk-openai'],
      ['/v1/chat/completions', 'Bearer sk-openai'],
    ]);
    // Which host each client dials, seen by a dispatcher that connects nowhere.
    const dialed: string[] = [];
    const nowhere = new Agent({
      connect: (opts, callback) => {
        dialed.push(`${opts.protocol}//${opts.hostname}`);
        callback(new Error('not connecting in a test'), null);
      },
    });
    const dial = async (client: { run: OpenAICompatibleChatClient['run']; close(): Promise<void> }) => {
      await drain(client.run([userMessage('x')])).catch(() => undefined);
      await client.close();
    };
    const offline = { dispatcher: nowhere, maxRetries: 0 };
    // An explicit base URL beats the variable; an empty variable is unset.
    await dial(createOpenAIClient({ model: 'm', baseURL: 'http://127.0.0.2:9/v1', ...offline }));
    process.env.OPENAI_BASE_URL = ' ';
    await dial(createOpenAIClient({ model: 'm', ...offline }));
    // DeepSeek, Agnes, Anthropic keep their own hosts: their keys never go to OpenAI's proxy.
    process.env.OPENAI_BASE_URL = server.baseURL;
    await dial(createDeepSeekClient({ model: 'deepseek-chat', ...offline }));
    await dial(createChatClient({ provider: 'deepseek', model: 'deepseek-chat', ...offline }));
    await dial(createAnthropicClient({ model: 'c', ...offline }));
    expect(() => createCustomClient({ model: 'c' })).toThrow(ConfigError);
    await nowhere.close();
    expect(dialed).toEqual([
      'http://127.0.0.2',
      'https://api.openai.com',
      'https://api.deepseek.com',
      'https://api.deepseek.com',
      'https://api.anthropic.com',
    ]);
    expect(server.requests).toHaveLength(2);
  });

  it('sends the AGNES_API_KEY as a bearer token to /chat/completions and reads its reasoning_content', async () => {
    server = await startMockModelServer({ turns: [{ reasoning: 'Thinking.', text: 'hi' }] });
    process.env.AGNES_API_KEY = 'agnes-key-123';
    const client = createAgnesClient({ model: 'agnes-1.5-pro', baseURL: server.baseURL });
    const updates = await drain(client.run([userMessage('x')]));
    await client.close();
    // The mock sends reasoning as `reasoning_content` deltas, as Agnes and DeepSeek do.
    expect(updates.filter((u) => u.type === 'reasoning-delta')).toEqual([
      { type: 'reasoning-delta', delta: 'Think' },
      { type: 'reasoning-delta', delta: 'ing.' },
    ]);
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer agnes-key-123');
  });

  it('sends the ANTHROPIC_API_KEY as x-api-key to /v1/messages, from a base with or without /v1', async () => {
    server = await startMockAnthropicServer({ turns: [{ text: 'one' }, { text: 'two' }] });
    process.env.ANTHROPIC_API_KEY = 'sk-ant-456';
    for (const baseURL of [server.url, `${server.url}/v1/`]) {
      const client = createChatClient({ provider: 'anthropic', model: 'claude', baseURL });
      await drain(client.run([userMessage('x')]));
      await client.close();
    }
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/messages', '/v1/messages']);
    expect(server.requests[0]?.headers['x-api-key']).toBe('sk-ant-456');
    expect(server.requests[0]?.headers['anthropic-version']).toBe('2023-06-01');
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('a hosted provider with no key fails each run with a ConfigError naming its variable, before any request; a base URL or a hand-set auth header is left alone', async () => {
    for (const name of ['OPENAI_API_KEY', 'DEEPSEEK_API_KEY', 'ANTHROPIC_API_KEY']) delete process.env[name];
    const cases = [
      [createOpenAIClient({ model: 'm' }), /provider "openai" has no API key .*OPENAI_API_KEY/],
      [createDeepSeekClient({ model: 'm' }), /provider "deepseek" has no API key .*DEEPSEEK_API_KEY/],
      [createAnthropicClient({ model: 'm' }), /provider "anthropic" has no API key .*ANTHROPIC_API_KEY/],
    ] as const;
    for (const [client, message] of cases) {
      const error = await drain(client.run([{ role: 'user', content: 'hi' }])).catch((e: unknown) => e);
      expect(ConfigError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(message);
    }
    // A run that brings its own credentials is not refused: it goes out (to a connector that
    // refuses every connection, so nothing leaves this machine) and fails as a connection error.
    const offline = new Agent({ connect: (_options, callback) => callback(new Error('offline-test'), null) });
    const tenant = createOpenAIClient({ model: 'm', dispatcher: offline, maxRetries: 0 });
    const ownKey = await drain(
      tenant.run([{ role: 'user', content: 'hi' }], { extraHeaders: { authorization: 'Bearer tenant-key' } }),
    ).catch((e: unknown) => e);
    expect(ConfigError.isInstance(ownKey)).toBe(false);
    expect(String(ownKey)).toMatch(/offline-test/);
    const noKey = await drain(tenant.run([{ role: 'user', content: 'hi' }])).catch((e: unknown) => e);
    expect(ConfigError.isInstance(noKey)).toBe(true);
    await offline.close();
    server = await startMockModelServer({ turns: [{ text: 'proxied' }] });
    const proxied = createOpenAIClient({ model: 'm', baseURL: server.baseURL });
    expect(await drain(proxied.run([{ role: 'user', content: 'hi' }]))).toContainEqual(
      expect.objectContaining({ type: 'text-delta', delta: 'proxied' }),
    );
    // The hosted URL with an auth header given by hand (a connection's headers) is not refused.
    expect(missingKeyProblem('openai', undefined, undefined, { Authorization: 'Bearer k' })).toBeUndefined();
    expect(missingKeyProblem('openai', `${PROVIDER_BASE_URLS.openai}/`, undefined, {})).toMatch(
      /OPENAI_API_KEY/,
    );
    expect(missingKeyProblem('custom', 'http://127.0.0.1:1/v1', undefined, {})).toBeUndefined();
  });

  it('explain what is missing or wrong', () => {
    expect(() => createCustomClient({ model: 'x' })).toThrow(ConfigError);
    expect(() => createCustomClient({ model: 'x' })).toThrow(/provider "custom" needs a base URL/);
    expect(() => createCustomClient({ model: 'x', baseURL: 'not a url' })).toThrow(
      /base URL "not a url" is not a valid URL/,
    );
    expect(() => createOpenAIClient({ model: '' })).toThrow(/needs a model id/);
    expect(() => createAnthropicClient({ model: '' })).toThrow(/provider "anthropic" needs a model id/);
    expect(() => createChatClient({ provider: 'gemini', model: 'g' })).toThrow(
      'unknown model provider "gemini"; use openai, deepseek, agnes, anthropic or custom (any OpenAI-compatible server)',
    );
  });
});
