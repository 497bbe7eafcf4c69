export type { AISDKClientOptions } from './ai-sdk-chat-client.js';
export { AISDKChatClient, fromAISDK } from './ai-sdk-chat-client.js';
export { aiSdkPlugin } from './ai-sdk-plugin.js';
export type { ToAISDKToolsOptions } from './tools.js';
export { toAISDKTools } from './tools.js';
