import { fileURLToPath } from 'node:url';
import { collectAgentResponse, getErrorMessage } from '@raf/core';
import { DeclAgentBuilder } from '@raf/decl';
import { sandboxPlugin } from '@raf/sandbox';

/** The YAML declares `kind: code`; `sandboxPlugin()` supplies it (nothing registers on import). */
export function analyst() {
  return new DeclAgentBuilder()
    .fromYamlFile(fileURLToPath(new URL('./agent.yaml', import.meta.url)))
    .use(sandboxPlugin());
}

export async function answer(
  question: string,
  write: (text: string) => void = (t) => process.stdout.write(t),
) {
  const agent = await analyst().build();
  try {
    const response = await collectAgentResponse(agent.run(question), {
      onUpdate: (u) => {
        if (u.type === 'text-delta') write(u.delta);
        if (u.type === 'tool-called') write(`→ ${u.name} ${JSON.stringify(u.result)}\n`);
      },
    });
    write('\n');
    return response;
  } finally {
    // The tool keeps a QuickJS interpreter per session (persist: true): free it.
    for (const tool of agent.tools) await (tool as { dispose?: () => Promise<void> }).dispose?.();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  answer(
    process.argv.slice(2).join(' ') || 'What was the average order value, and which order was largest?',
  ).catch((error: unknown) => {
    process.stderr.write(`code: ${getErrorMessage(error)}\n`);
    process.exitCode = 1;
  });
}
