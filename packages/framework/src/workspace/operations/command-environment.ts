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
 * The environment of a command, under every policy: the allowlist (`PATH`, `HOME`, `LANG`,
 * `LC_*`, `TERM`, `TZ`, `USER`) taken from `parent`, without any name that looks like a key,
 * token, secret or password, plus the workspace's `env:` (explicit, so it may name anything).
 * `home` replaces `HOME` (the main root inside the sandbox).
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
  return { ...env, ...options.explicit };
}
