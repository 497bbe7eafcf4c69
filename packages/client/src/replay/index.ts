export type { RecordingChatClientOptions } from './recording-client.js';
export { RecordingChatClient } from './recording-client.js';
export type { ReplayChatClientOptions } from './replay-client.js';
export { ReplayChatClient } from './replay-client.js';
export type { ReplayRecord, ReplayTurn, SafeParseReplayResult } from './replay-file.js';
export { loadReplayFile, parseReplayRecord, safeParseReplayRecord } from './replay-file.js';
