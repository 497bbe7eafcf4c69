// One half of the two-process approval test: `start` runs until the approval pause and saves the
// session; `resume` (a new process) loads it, approves and finishes. Prints the updates as JSON.
import { OpenAICompatibleChatClient } from '@raf/client';
import { defineTool, toolSuccess } from '@raf/core';
import { z } from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';
import { AgentSession } from '../sessions/agent-session.js';
import { FileSessionStore } from '../sessions/file-session-store.js';

const [mode, baseURL, directory] = process.argv.slice(2) as [string, string, string];
const client = new OpenAICompatibleChatClient({ model: 'mock', baseURL, maxRetries: 0 });
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy to an environment',
  parameters: z.object({ env: z.string() }),
  requiresApproval: true,
  execute: ({ env }) => toolSuccess({ deployed: env, pid: process.pid }),
});
const agent = new AgentBuilder('deployer')
  .chatClient(client)
  .instructions('You deploy.')
  .withTool(deploy)
  .build();
const store = new FileSessionStore(directory);

const updates = [];
if (mode === 'start') {
  const session = agent.createSession('deploy-1');
  for await (const update of agent.run('deploy to prod', { session })) updates.push(update);
  await store.save(session.toJSON());
} else {
  const snapshot = await store.load('deploy-1');
  if (!snapshot) throw new Error('no saved session');
  const session = AgentSession.fromJSON(snapshot);
  const callId = session.pendingApproval!.gatedCallIds[0]!;
  for await (const update of agent.run(undefined, { session, approvals: [{ callId, approved: true }] }))
    updates.push(update);
  await store.save(session.toJSON());
}
await client.close();
process.stdout.write(`${JSON.stringify(updates)}\n`);
