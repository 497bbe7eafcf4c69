export type { RecordingChatClientOptions, ReplayChatClientOptions } from './replay-client.js';
export { RecordingChatClient, ReplayChatClient } from './replay-client.js';
export type { ReplayRecord, ReplayTurn, SafeParseReplayResult } from './replay-file.js';
export { loadReplayFile, parseReplayRecord, safeParseReplayRecord } from './replay-file.js';
