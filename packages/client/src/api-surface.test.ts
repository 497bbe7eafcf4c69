import { describe, expect, it } from 'vitest';

// Every name an entry point exports is public API: a new one must show up here, on purpose.
describe('@raf/client public surface', () => {
  it('root entry', async () => {
    expect(Object.keys(await import('@raf/client')).sort()).toMatchInlineSnapshot(`
      [
        "AnthropicChatClient",
        "DEFAULT_RETRY",
        "DEFAULT_TIMEOUTS",
        "OpenAICompatibleChatClient",
        "PROVIDER_BASE_URLS",
        "createAgnesClient",
        "createAnthropicClient",
        "createChatClient",
        "createCustomClient",
        "createDeepSeekClient",
        "createOpenAIClient",
        "preloadHttp",
      ]
    `);
  });

  it('@raf/client/replay', async () => {
    expect(Object.keys(await import('@raf/client/replay')).sort()).toMatchInlineSnapshot(`
      [
        "RecordingChatClient",
        "ReplayChatClient",
        "loadReplayFile",
        "parseReplayRecord",
        "safeParseReplayRecord",
      ]
    `);
  });

  it('@raf/client/testing', async () => {
    expect(Object.keys(await import('@raf/client/testing')).sort()).toMatchInlineSnapshot(`
      [
        "RecordingChatClient",
        "ReplayChatClient",
        "ScriptedChatClient",
        "loadReplayFile",
        "parseReplayRecord",
        "safeParseReplayRecord",
        "scriptTurnToUpdates",
        "startMockAnthropicServer",
        "startMockModelServer",
      ]
    `);
  });
});
