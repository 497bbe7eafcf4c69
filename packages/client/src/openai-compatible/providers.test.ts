import { ConfigError } from '@raf/core';
import { describe, expect, it } from 'vitest';
import {
  createChatClient,
  createCustomClient,
  createDeepSeekClient,
  createOpenAIClient,
} from './providers.js';

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
    delete process.env.OPENAI_API_KEY;
  });

  it('explain what is missing or wrong', () => {
    expect(() => createCustomClient({ model: 'x' })).toThrow(ConfigError);
    expect(() => createCustomClient({ model: 'x' })).toThrow(/provider "custom" needs a base URL/);
    expect(() => createCustomClient({ model: 'x', baseURL: 'not a url' })).toThrow(
      /base URL "not a url" is not a valid URL/,
    );
    expect(() => createOpenAIClient({ model: '' })).toThrow(/needs a model id/);
    expect(() => createChatClient({ provider: 'anthropic', model: 'c' })).toThrow(
      /unknown model provider "anthropic"/,
    );
  });
});
