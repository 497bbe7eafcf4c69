import { writeFile } from 'node:fs/promises';
import { assistantMessage, toolMessage, userMessage } from '@raf/core';
import { loadLlamaChatClient } from './src/index.js';
import { scriptedToolCallModelBytes } from './src/test-support/scripted-model.js';

await writeFile(
  '/tmp/scripted.gguf',
  scriptedToolCallModelBytes({ tool: 'lookup', key: 'query', value: 'tea', answer: 'done' }),
);
const c = await loadLlamaChatClient({
  modelPath: '/tmp/scripted.gguf',
  threads: 1,
  modelOptions: { maxTokens: 40 },
});
const tools = [
  {
    name: 'lookup',
    description: 'Look up',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
];
const ups = [];
for await (const u of c.run([userMessage('what do I like?')], { tools })) ups.push(u);
console.log(JSON.stringify(ups));
const ups2 = [];
for await (const u of c.run(
  [
    userMessage('what do I like?'),
    assistantMessage('', [{ id: 'x', name: 'lookup', arguments: '{"query":"tea"}' }]),
    toolMessage('{"ok":true}', 'x'),
  ],
  { tools },
))
  ups2.push(u);
console.log(JSON.stringify(ups2));
const ups3 = [];
for await (const u of c.run([userMessage('what do I like?')])) ups3.push(u);
console.log(JSON.stringify(ups3));
await c.dispose();
