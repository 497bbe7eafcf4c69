import { readFile } from 'node:fs/promises';
import type { ApprovalResponse, ToolApprovalRequestUpdate } from '@raf/core';

/** For writes and edits: the change as a unified diff of the resolved target. */
export async function previewChange(request: ToolApprovalRequestUpdate): Promise<string | undefined> {
  const args = (request.arguments ?? {}) as Record<string, unknown>;
  const target = request.resolvedTarget;
  if (!target || (request.name !== 'write_file' && request.name !== 'edit_file')) return undefined;
  const before = await readFile(target, 'utf8').catch(() => '');
  let after: string;
  if (request.name === 'write_file') after = String(args.content ?? '');
  else {
    const oldText = String(args.old_str ?? '');
    const at = before.indexOf(oldText);
    if (oldText === '' || at < 0) return undefined;
    after = before.slice(0, at) + String(args.new_str ?? '') + before.slice(at + oldText.length);
  }
  const { createTwoFilesPatch } = await import('diff');
  return createTwoFilesPatch(target, target, before, after, 'now', 'after', { context: 3 });
}

/** The lines shown before asking: tool, resolved target, arguments, and a diff for writes. */
export async function describeRequest(request: ToolApprovalRequestUpdate): Promise<string> {
  const lines = [`approve ${request.name}?`];
  if (request.resolvedTarget) lines.push(`  target: ${request.resolvedTarget}`);
  lines.push(`  arguments: ${JSON.stringify(request.arguments)}`);
  const diff = await previewChange(request);
  if (diff) lines.push(diff.split('\n').slice(2).join('\n'));
  return lines.join('\n');
}

/** Asks about each request on the terminal: `y` approves, anything else denies. */
export async function askApprovals(
  requests: readonly ToolApprovalRequestUpdate[],
  ask: (question: string) => Promise<string>,
  write: (text: string) => void,
): Promise<ApprovalResponse[]> {
  const answers: ApprovalResponse[] = [];
  for (const request of requests) {
    write(`${await describeRequest(request)}\n`);
    const answer = (await ask('[y/N] ')).trim().toLowerCase();
    const approved = answer === 'y' || answer === 'yes';
    answers.push(
      approved
        ? { callId: request.callId, approved }
        : { callId: request.callId, approved, reason: 'User denied' },
    );
  }
  return answers;
}
