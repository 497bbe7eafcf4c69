import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { CliArgs } from '../args.js';
import {
  agentYaml,
  DEFAULT_CHOICES,
  type InitChoices,
  PROVIDER_KEYS,
  WORKSPACE_README,
} from '../init/init-template.js';
import { CliError, type CliIO, EXIT } from '../io.js';

/**
 * `raf init [dir]`: a template agent (`agent.yaml`, and a `workspace/` folder when it has one).
 * On a terminal it asks what to include; `--yes` (or no terminal) takes the defaults and the flags
 * (`--name`, `--provider`, `--model`, `--web`). It never overwrites a file.
 */
export async function initCommand(args: CliArgs, io: CliIO): Promise<number> {
  const dir = resolve(io.cwd, args.files[0] ?? '.');
  const shown = relative(io.cwd, dir) || '.';
  const file = join(dir, 'agent.yaml');
  if (args.provider !== undefined) checkProvider(args.provider);
  if (await stat(file).catch(() => undefined))
    throw new CliError(
      `${join(shown, 'agent.yaml')} exists; raf init never overwrites (remove it or init another folder)`,
    );
  let choices: InitChoices = {
    ...DEFAULT_CHOICES,
    ...(args.name !== undefined && { name: args.name }),
    ...(args.provider !== undefined && { provider: args.provider }),
    ...(args.model !== undefined && { model: args.model }),
    ...(args.web && { web: true }),
  };
  if (io.stdin.isTTY && !args.yes) choices = await ask(choices, io);
  checkProvider(choices.provider);
  const workspace = join(dir, 'workspace');
  if (
    choices.workspace &&
    (await stat(workspace).catch(() => undefined)) &&
    !(await stat(workspace)).isDirectory()
  )
    throw new CliError(`${join(shown, 'workspace')} exists and is not a folder`);
  await mkdir(dir, { recursive: true });
  // `wx`: a file that appeared since the check is still not overwritten.
  await writeFile(file, agentYaml(choices), { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    throw new CliError(`cannot write ${join(shown, 'agent.yaml')} (${error.code ?? error.message})`);
  });
  const written = [join(shown, 'agent.yaml')];
  if (choices.workspace) {
    await mkdir(workspace, { recursive: true });
    const readme = join(workspace, 'README.md');
    if (
      await writeFile(readme, WORKSPACE_README, { flag: 'wx' }).then(
        () => true,
        () => false,
      )
    )
      written.push(join(shown, 'workspace', 'README.md'));
  }
  const at = shown === '.' ? '' : `cd ${shown} && `;
  const key = PROVIDER_KEYS[choices.provider];
  io.stdout.write(
    `wrote ${written.join(', ')}\n\nNext:\n` +
      `  ${at}raf validate agent.yaml\n` +
      `  raf mock &        # an offline model; it prints the --base-url to use\n` +
      `  raf run agent.yaml --base-url http://127.0.0.1:PORT/v1 -i "What is in my workspace?"\n` +
      (key
        ? `  export ${key}=…   then: raf chat agent.yaml   (the real model)\n`
        : '  raf chat agent.yaml\n') +
      (choices.web ? '  npm install @raf/web   (for kind: web)\n' : ''),
  );
  return EXIT.ok;
}

/** The questions, one readline for all of them (answers typed ahead are not lost). */
async function ask(defaults: InitChoices, io: CliIO): Promise<InitChoices> {
  // The terminal's own line editing (cooked mode) is enough for a few short answers.
  const rl = createInterface({ input: io.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const question = async (text: string, fallback: string) => {
    io.stderr.write(`${text} [${fallback}] `);
    const next = await lines.next();
    const answer = next.done ? '' : next.value.trim();
    return answer === '' ? fallback : answer;
  };
  const yes = (answer: string) => /^y(es)?$/i.test(answer);
  try {
    const name = await question('Agent name?', defaults.name);
    const provider = await question(
      `Model provider (${Object.keys(PROVIDER_KEYS).join(', ')})?`,
      defaults.provider,
    );
    const model = await question('Model id?', defaults.model);
    const workspace = yes(
      await question('A workspace folder with the file tools?', defaults.workspace ? 'y' : 'n'),
    );
    const commands = workspace
      ? await question(
          'Commands it may run without asking (space-separated, - for none)?',
          defaults.allowCommands.join(' '),
        )
      : '-';
    const web = yes(await question('Web search and fetch (needs @raf/web)?', defaults.web ? 'y' : 'n'));
    return {
      name,
      provider,
      model,
      workspace,
      allowCommands: commands === '-' ? [] : commands.split(/\s+/).filter(Boolean),
      web,
    };
  } finally {
    rl.close();
  }
}

function checkProvider(provider: string): void {
  if (!Object.hasOwn(PROVIDER_KEYS, provider))
    throw new CliError(
      `the provider must be one of ${Object.keys(PROVIDER_KEYS).join(', ')} (got "${provider}")`,
    );
}
