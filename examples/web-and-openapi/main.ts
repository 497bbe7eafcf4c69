import { fileURLToPath } from 'node:url';
import { collectAgentResponse, getErrorMessage } from '@raf/core';
import { DeclAgentBuilder } from '@raf/decl';
import { openapiPlugin } from '@raf/openapi';
import { webPlugin } from '@raf/web';
import { startDemoServers } from './demo-servers.js';

/** The agent of agent.yaml with both extensions registered (the `raf` CLI does this by itself). */
export function scoutAgent(env: Record<string, string | undefined>) {
  return new DeclAgentBuilder()
    .fromYamlFile(fileURLToPath(new URL('./agent.yaml', import.meta.url)))
    .withEnvironment(env)
    .use(webPlugin())
    .use(openapiPlugin());
}

/** Starts the demo servers, asks the question, prints each tool call and the answer. */
export async function ask(question: string, write: (text: string) => void = (t) => process.stdout.write(t)) {
  const servers = await startDemoServers();
  try {
    const agent = await scoutAgent({ ...process.env, ...servers.env }).build();
    const response = await collectAgentResponse(agent.run(question), {
      onUpdate: (u) => {
        if (u.type === 'text-delta') write(u.delta);
        if (u.type === 'tool-called') {
          const result = JSON.stringify(u.result);
          write(`→ ${u.name} ${result.length > 100 ? `${result.slice(0, 99)}…` : result}\n`);
        }
      },
    });
    write('\n');
    return { response, seen: servers.seen };
  } finally {
    await servers.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  ask(
    process.argv.slice(2).join(' ') ||
      'We would like to adopt a calm older dog. What should we know, and does the shelter have one?',
  ).catch((error: unknown) => {
    process.stderr.write(`web-and-openapi: ${getErrorMessage(error)}\n`);
    process.exitCode = 1;
  });
}
