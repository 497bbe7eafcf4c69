// The process `durable.ts` kills: a durable run whose first round asks for `block`, a tool that
// never returns. It prints `in-tool` when the call started; the bench process (a worker) then
// kills it and times how long until the run goes on there.
import { ScriptedChatClient } from '@raf/client/testing';
import { defineTool } from '@raf/core';
import { durableAgent } from '@raf/dbos';
import { AgentBuilder } from '@raf/framework';
import { z } from 'zod';

const [url, runId] = process.argv.slice(2) as [string, string];
const agent = new AgentBuilder('durable-bench-recovery')
  .chatClient(new ScriptedChatClient([{ toolCalls: [{ id: 'blocked', name: 'block', arguments: {} }] }]))
  .withTool(
    defineTool({
      name: 'block',
      description: 'Never returns',
      parameters: z.object({}),
      execute: async () => {
        process.stdout.write('in-tool\n');
        return new Promise(() => {});
      },
    }),
  )
  .build();
const durable = await durableAgent(agent, { store: url });
await durable.run('go', { runId });
