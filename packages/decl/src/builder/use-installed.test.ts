import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packageManager } from '../registry/install-hint.js';
import { DeclAgentBuilder } from './decl-agent-builder.js';

// A project outside the repository with an agent that needs `kind: web`, and (when a test says so)
// an `@raf/web` installed in its node_modules: a real package folder with a plugin that makes one
// tool, found the way a user's project has it.
let project: string;
const agent = () => join(project, 'agent.yaml');
const savedAgent = process.env.npm_config_user_agent;

function installWeb(): void {
  const dir = join(project, 'node_modules', '@raf', 'web');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: '@raf/web', type: 'module', exports: { '.': { import: './index.js' } } }),
  );
  writeFileSync(
    join(dir, 'index.js'),
    `export function webPlugin() {
  return {
    specificationVersion: 'v1',
    packageName: '@raf/web',
    toolKinds: { web: () => [{ name: 'web_fetch', description: 'fetch', parameters: { type: 'object' }, execute: async () => ({ ok: true, value: '' }) }] },
  };
}
`,
  );
}

beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), 'raf-use-installed-'));
  writeFileSync(
    agent(),
    'kind: prompt\nname: w\nmodel: { id: m, provider: custom, connection: { endpoint: http://127.0.0.1:9/v1 } }\ntools:\n  - kind: web\n',
  );
});
afterEach(() => {
  rmSync(project, { recursive: true, force: true });
  process.env.npm_config_user_agent = savedAgent;
});

const firstError = async (builder: DeclAgentBuilder) => (await builder.validate()).errors[0]?.message;

describe('extensions in code', () => {
  it('not installed: the error says what to install, in the package manager that runs the process', async () => {
    process.env.npm_config_user_agent = 'npm/10.9.2 node/v20.20.2 linux x64';
    expect(await firstError(new DeclAgentBuilder().fromYamlFile(agent()))).toBe(
      'tool kind "web" needs @raf/web (npm install @raf/web; builder.use(webPlugin()))',
    );
    process.env.npm_config_user_agent = 'yarn/4.5.0 npm/? node/v20.20.2';
    expect(await firstError(new DeclAgentBuilder().fromYamlFile(agent()))).toContain('(yarn add @raf/web;');
  });

  it('installed but not registered: the error says to register it, not to install it', async () => {
    installWeb();
    expect(await firstError(new DeclAgentBuilder().fromYamlFile(agent()))).toBe(
      'tool kind "web" needs @raf/web, which is installed but not registered (builder.use(webPlugin()) or builder.useInstalled())',
    );
  });

  it('useInstalled() registers the installed extension the file needs', async () => {
    installWeb();
    const report = await new DeclAgentBuilder().fromYamlFile(agent()).useInstalled().validate();
    expect(report.errors).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('useInstalled() with nothing installed reports the missing package as before', async () => {
    process.env.npm_config_user_agent = 'pnpm/12.4.2 npm/? node/v20.20.2';
    expect(await firstError(new DeclAgentBuilder().fromYamlFile(agent()).useInstalled())).toBe(
      'tool kind "web" needs @raf/web (pnpm add @raf/web; builder.use(webPlugin()))',
    );
  });

  it('without a package manager in the environment, the project’s lockfile decides, else npm', () => {
    const env = {};
    expect(packageManager(project, env)).toBe('npm');
    writeFileSync(join(project, 'pnpm-lock.yaml'), '');
    expect(packageManager(project, env)).toBe('pnpm');
    expect(packageManager(project, { npm_config_user_agent: 'bun/1.2.0' })).toBe('bun');
  });
});
