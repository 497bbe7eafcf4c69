// Record/replay moved to `@raf/client/replay`; re-exported here so existing imports keep working.
export type {
  RecordingChatClientOptions,
  ReplayChatClientOptions,
  ReplayRecord,
  ReplayTurn,
  SafeParseReplayResult,
} from '../replay/index.js';
export {
  loadReplayFile,
  parseReplayRecord,
  RecordingChatClient,
  ReplayChatClient,
  safeParseReplayRecord,
} from '../replay/index.js';
export type {
  MockModelServer,
  MockModelServerOptions,
  MockTurn,
  MockTurnInput,
  RecordedRequest,
} from './mock-server.js';
export { startMockAnthropicServer, startMockModelServer, startMockResponsesServer } from './mock-server.js';
export type { ScriptToolCall, ScriptTurn } from './script-turn.js';
export { scriptTurnToUpdates } from './script-turn.js';
export type {
  ScriptedAnswer,
  ScriptedCall,
  ScriptedChatClientOptions,
  ScriptedFailure,
  ScriptedResponse,
} from './scripted-chat-client.js';
export { ScriptedChatClient } from './scripted-chat-client.js';
