// A process that consolidates memory without pause while saving entries, for the crash test:
// it prints "ready" once the bundle is open and "saved <page> <id>" after each save returns.
import { setTimeout as delay } from 'node:timers/promises';
import { OpenAICompatibleChatClient } from '@raf/client';
import { assistantMessage, userMessage } from '@raf/core';
import { SuperBrainContextProvider } from '../memory/super-brain-provider.js';
import { AgentSession } from '../sessions/agent-session.js';

const [dir, baseURL, name] = process.argv.slice(2) as [string, string, string];
const client = new OpenAICompatibleChatClient({ model: 'mock', baseURL, maxRetries: 0 });
const provider = new SuperBrainContextProvider({
  directory: dir,
  chatClient: client,
  consolidationInterval: 1,
});
const session = new AgentSession(name);
await provider.bundle.seed();
process.stdout.write('ready\n');
for (let n = 0; ; n++) {
  if (!provider.consolidating) {
    session.addMessages([userMessage(`${name}: learn fact ${n}`), assistantMessage(`noted fact ${n}`)]);
    provider.consolidate(session);
  }
  const topic = n % 3 === 0 ? 'user' : `learned/${name}/s${n % 4}`;
  const saved = await provider.bundle.save(topic, `${name} entry ${n}`);
  process.stdout.write(`saved ${saved.path} ${saved.id}\n`);
  await delay(5);
}
