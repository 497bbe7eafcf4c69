// A fresh process that imports the framework, builds an agent with one zod tool, runs it once
// against a scripted model and prints the files it loaded by then: ES modules (seen by a resolve
// hook registered before anything else loads) and CommonJS ones (the require cache).
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const { port1, port2 } = new MessageChannel();
const esm: string[] = [];
port1.on('message', (url: string) => esm.push(url));
port1.unref();
const hooks = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  port.postMessage(resolved.url);
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, {
  data: { port: port2 },
  transferList: [port2],
});

const loaded = async () => {
  // The hook thread posts asynchronously: let its messages arrive.
  await new Promise((resolve) => setTimeout(resolve, 50));
  return [...esm, ...Object.keys(createRequire(import.meta.url).cache)];
};

const [{ ScriptedChatClient }, { defineTool, toolSuccess }, { z }, { AgentBuilder }] = await Promise.all([
  import('@raf/client/testing'),
  import('@raf/core'),
  import('zod'),
  import('../index.js'),
]);
const imported = await loaded();
const client = new ScriptedChatClient([
  { toolCalls: [{ id: 'c1', name: 'lookup', arguments: { id: 1 } }] },
  { text: 'done' },
]);
const agent = new AgentBuilder('plain')
  .chatClient(client)
  .withTool(
    defineTool({
      name: 'lookup',
      description: 'Look an item up',
      parameters: z.object({ id: z.number() }),
      execute: ({ id }) => toolSuccess({ id }),
    }),
  )
  .build();
let finish = '';
for await (const update of agent.run('go')) if (update.type === 'finish') finish = update.reason;
process.stdout.write(`${JSON.stringify({ finish, imported, afterRun: await loaded() })}\n`);
