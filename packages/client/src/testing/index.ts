export type {
  MockModelServer,
  MockModelServerOptions,
  MockTurn,
  MockTurnInput,
  RecordedRequest,
} from './mock-server.js';
export { startMockModelServer } from './mock-server.js';
export type { RecordingChatClientOptions, ReplayChatClientOptions } from './replay-client.js';
export { RecordingChatClient, ReplayChatClient } from './replay-client.js';
export type { ReplayRecord, ReplayTurn, SafeParseReplayResult } from './replay-file.js';
export { loadReplayFile, parseReplayRecord, safeParseReplayRecord } from './replay-file.js';
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
