import type { ApprovalMode } from './mcp-config.js';

/**
 * Whether a tool asks before it runs. `never` (the default) and `always` apply to every tool of
 * the server. In the per-tool form a tool in `always` asks and one in `never` does not; a tool in
 * neither asks when a `never` list exists (it is an allow-list of safe tools: fail closed) and
 * does not otherwise. Names may be the server's or the local (renamed) ones.
 */
export function isGated(mode: ApprovalMode | undefined, remoteName: string, localName: string): boolean {
  if (mode === undefined || mode === 'never') return false;
  if (mode === 'always') return true;
  const listed = (names: string[] | undefined) =>
    names !== undefined && (names.includes(remoteName) || names.includes(localName));
  if (listed(mode.always)) return true;
  if (listed(mode.never)) return false;
  return mode.never !== undefined;
}
