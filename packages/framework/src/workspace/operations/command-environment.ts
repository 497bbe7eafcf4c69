import type { WorkspaceScope } from '@raf/core';

/** Variables a command inherits from this process (`LC_*` too); everything else is dropped. */
export const INHERITED_VARIABLES = ['PATH', 'HOME', 'LANG', 'TERM', 'TZ', 'USER'] as const;
/** Names that never pass unless the workspace's `env:` names them. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD/i;

/** The workspace's `env:` map (string values only). */
export function workspaceEnvOf(scope: WorkspaceScope | undefined): Record<string, string> {
  const value = scope?.properties?.env;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  const env: Record<string, string> = {};
  for (const [name, item] of Object.entries(value)) {
    if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean')
      env[name] = String(item);
  }
  return env;
}

/**
 * Git configuration every command gets through `GIT_CONFIG_COUNT` (git ≥ 2.31; honoured by
 * git ≥ 2.38). `safe.bareRepository=explicit`: git refuses a bare repository it discovers by
 * itself, so a folder the model shaped like one (`HEAD`, `objects/`, `refs/`, a `config` with
 * `core.fsmonitor`) runs nothing at an allowed `git status` inside it. A normal repository (its
 * `.git` folder or a `.git` file) is not affected; `git --git-dir=…` still opens a bare one.
 * `safe.bareRepository` is read only from the system, global and command-line configuration, so
 * no repository can turn it back on.
 */
export const COMMAND_GIT_CONFIG: readonly (readonly [string, string])[] = [
  ['safe.bareRepository', 'explicit'],
];

/**
 * Appends `COMMAND_GIT_CONFIG` after the entries `env` already has (the workspace's `env:` may
 * set `GIT_CONFIG_COUNT` itself): later entries win, so these hold over the user's. A count that
 * is not a number is replaced (git would refuse to run with it anyway).
 */
export function withGitConfig(env: Record<string, string>): Record<string, string> {
  const given = env.GIT_CONFIG_COUNT?.trim() ?? '';
  let count = /^[0-9]{1,6}$/.test(given) ? Number(given) : 0;
  for (const [key, value] of COMMAND_GIT_CONFIG) {
    env[`GIT_CONFIG_KEY_${count}`] = key;
    env[`GIT_CONFIG_VALUE_${count}`] = value;
    count++;
  }
  env.GIT_CONFIG_COUNT = String(count);
  return env;
}

/**
 * The environment of a command, under every policy: the allowlist (`PATH`, `HOME`, `LANG`,
 * `LC_*`, `TERM`, `TZ`, `USER`) taken from `parent`, without any name that looks like a key,
 * token, secret or password, plus the workspace's `env:` (explicit, so it may name anything),
 * plus `COMMAND_GIT_CONFIG`. `home` replaces `HOME` (the main root inside the sandbox).
 */
export function commandEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  options: { explicit?: Readonly<Record<string, string>>; home?: string } = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined || SECRET_NAME.test(name)) continue;
    if ((INHERITED_VARIABLES as readonly string[]).includes(name) || name.startsWith('LC_'))
      env[name] = value;
  }
  if (options.home !== undefined) env.HOME = options.home;
  return withGitConfig({ ...env, ...options.explicit });
}
