import { scopeRoots, type WorkspaceScope } from '@raf/core';
import { allowedCommandsOf } from '../builtin-tools/command-allowlist.js';

const POLICY_TEXT = {
  AllowAll: 'allow — paths outside the workspace may be used freely.',
  ApproveOutside:
    'approve — work inside the workspace runs directly; a call that reaches outside it waits for the user to approve it.',
  DenyOutside: 'deny — paths outside the workspace are refused with an error.',
} as const;

/**
 * What the model is told about a workspace: name, roots, what the policy means, how paths are
 * labelled, and how commands are treated (asked, confined, or explicitly not confined).
 */
export function workspaceInstructions(
  scope: WorkspaceScope,
  options: { hasCommands: boolean; confined: boolean },
): string {
  const roots = scopeRoots(scope);
  const lines = [
    '## Workspace',
    `- Name: ${scope.name}`,
    roots.length === 1
      ? `- Root: ${scope.root}`
      : `- Roots: ${roots.join(', ')} (relative paths resolve against ${scope.root})`,
    `- Policy: ${POLICY_TEXT[scope.policy]}`,
    '- Relative paths resolve inside the workspace root.',
    '- Absolute paths outside the workspace are labelled `outside_workspace`.',
    '- Every tool result carries `scope`: `workspace`, `outside_workspace` or `none`.',
    `- Protected: the agent definition, the sessions folder, \`.raf/\` and \`.env*\` files are not readable or writable by the tools${scope.policy === 'AllowAll' ? ' (writing them asks)' : ''}; everything in a \`.git\` folder (or a \`.git\` file) ${scope.policy === 'DenyOutside' ? 'is read-only' : scope.policy === 'ApproveOutside' ? 'asks before a write' : 'is writable'}.`,
  ];
  if (options.hasCommands) {
    if (scope.policy === 'ApproveOutside') {
      const allowed = allowedCommandsOf(scope.properties);
      lines.push(
        allowed.length > 0
          ? `- run_command runs directly only for commands starting with: ${allowed.join(', ')}; other commands wait for approval.`
          : '- run_command waits for approval for every command.',
      );
    } else if (scope.policy === 'DenyOutside') {
      lines.push(
        options.confined
          ? `- run_command runs confined: the workspace is writable, only the system's program folders are readable (no home folder), network ${scope.properties?.network === true ? 'on' : 'off'}.`
          : '- run_command is NOT confined on this machine (bubblewrap is not installed): only its working_dir is checked.',
      );
    }
  }
  return lines.join('\n');
}
