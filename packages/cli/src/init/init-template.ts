/** What `raf init` puts in the agent it writes. */
export interface InitChoices {
  name: string;
  provider: string;
  model: string;
  /** A `workspace/` folder with the file tools routed to it. */
  workspace: boolean;
  /** Commands `run_command` runs without asking (the others ask first). */
  allowCommands: string[];
  /** `kind: web` (`web_search`, `web_fetch`; needs `@raf/web`). */
  web: boolean;
}

export const DEFAULT_CHOICES: InitChoices = {
  name: 'my-agent',
  provider: 'openai',
  model: 'gpt-4o-mini',
  workspace: true,
  allowCommands: ['ls', 'cat'],
  web: false,
};

/** The providers an init can name, and the variable holding each one's key. */
export const PROVIDER_KEYS: Readonly<Record<string, string | undefined>> = {
  openai: 'OPENAI_API_KEY',
  deepseek: 'DEEPSEEK_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  agnes: 'AGNES_API_KEY',
  custom: undefined,
};

/** YAML quoting for a value the user typed: plain when that reads back as the same string. */
const quoted = (text: string) =>
  /^[A-Za-z0-9][\w .\-/]*$/.test(text) && !/: |\s$/.test(text) ? text : JSON.stringify(text);

/** The agent file: every choice commented, so the file explains itself. */
export function agentYaml(choices: InitChoices): string {
  const key = PROVIDER_KEYS[choices.provider];
  const lines = [
    '# An agent written by `raf init`. Check it: raf validate agent.yaml; see its plan: raf inspect agent.yaml',
    '# Editor completion: raf schema > agent.schema.json, then add the line',
    '#   # yaml-language-server: $schema=./agent.schema.json',
    'kind: prompt',
    `name: ${quoted(choices.name)}`,
    'description: A helper that works in its workspace folder.',
    'model:',
    `  id: ${quoted(choices.model)}`,
    `  provider: ${choices.provider}${key ? `   # the key comes from ${key}` : ''}`,
    ...(choices.provider === 'custom'
      ? ['  connection:', '    endpoint: http://127.0.0.1:8765/v1   # any OpenAI-compatible server']
      : []),
    '  # Offline, with no key: `raf mock &`, then raf run agent.yaml --base-url <the URL it prints>',
    'instructions: |',
    '  You are a careful assistant.',
    ...(choices.workspace
      ? ['  Work in the workspace folder: read files before you change them, and say what you changed.']
      : []),
  ];
  if (choices.workspace) {
    lines.push(
      'contexts:',
      '  - kind: workspace',
      '    name: workspace',
      '    config:',
      '      root: ./workspace',
      '      policy: approve   # inside the folder runs directly; outside it asks first',
      `      allowCommands: [${choices.allowCommands.map(quoted).join(', ')}]   # other commands ask first`,
    );
  }
  const tools = [
    ...(choices.workspace ? ['  - kind: file   # the 11 file and shell tools, routed to the workspace'] : []),
    ...(choices.web ? ['  - kind: web    # web_search and web_fetch (npm install @raf/web)'] : []),
  ];
  if (tools.length > 0) lines.push('tools:', ...tools);
  lines.push('maxToolRounds: 8', '');
  return lines.join('\n');
}

export const WORKSPACE_README = `# workspace

The agent's folder: its file tools read and write here, and only here without asking.
Put the files you want it to work on in this folder.
`;
