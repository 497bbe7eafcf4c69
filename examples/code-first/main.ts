import { fileURLToPath } from 'node:url';
import { createChatClient } from '@raf/client';
import { RecordingChatClient, ReplayChatClient } from '@raf/client/testing';
import { getErrorMessage } from '@raf/core';
import { runAgentQuickstart } from './agent.js';
import { runQuickstart } from './quickstart.js';

// Offline by default: the model is the recorded session next to this file (provider "replay").
// RAF_RECORD=1 records a new session from a real model instead:
//   RAF_RECORD=1 OPENAI_API_KEY=… [OPENAI_BASE_URL=…] [RAF_MODEL=…] pnpm quickstart
const recording = fileURLToPath(new URL('./session.replay.json', import.meta.url));

async function main(): Promise<void> {
  // `--agent`: the same agent on @raf/framework (typed run context, a prepareStep hook).
  const args = process.argv.slice(2);
  const agent = args.includes('--agent');
  const input = args.filter((a) => a !== '--agent').join(' ') || undefined;
  const client =
    process.env.RAF_RECORD === '1'
      ? new RecordingChatClient(
          createChatClient({
            provider: process.env.OPENAI_BASE_URL ? 'custom' : 'openai',
            model: process.env.RAF_MODEL ?? 'gpt-4o-mini',
            ...(process.env.OPENAI_BASE_URL && { baseURL: process.env.OPENAI_BASE_URL }),
          }),
          { file: recording },
        )
      : await ReplayChatClient.fromFile(recording);
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  const run = agent ? runAgentQuickstart : runQuickstart;
  await run({ client, signal: controller.signal, ...(input && { input }) });
}

main().catch((error: unknown) => {
  process.stderr.write(`quickstart: ${getErrorMessage(error)}\n`);
  process.exitCode = 1;
});
