const t = [['start', performance.now()]];
const mark = (n) => t.push([n, performance.now()]);
const { z } = await import('zod'); mark('zod');
const core = await import('@raf/core'); mark('core');
const { OpenAICompatibleChatClient } = await import('@raf/client'); mark('client');
const { AgentBuilder } = await import('@raf/framework'); mark('framework');
const client = new OpenAICompatibleChatClient({ model: 'loop', baseURL: process.argv[2], apiKey: 'x' });
const agent = new AgentBuilder('bench').chatClient(client).instructions('x').withTool(core.defineTool({ name: 'lookup', description: 'd', parameters: z.object({ id: z.number() }), execute: ({ id }) => core.toolSuccess({ id }) })).build();
mark('build');
let n = 0; for await (const u of agent.run('go')) { if (u.type === 'tool-called') { if (!n) mark('first tool'); n++; } }
mark('run');
console.log('node start', (performance.timeOrigin ? performance.nodeTiming.bootstrapComplete : 0).toFixed(0), t.map(([k, v], i) => `${k} +${(v - (t[i - 1]?.[1] ?? 0)).toFixed(0)}`).join(' '));
process.exit(0);
