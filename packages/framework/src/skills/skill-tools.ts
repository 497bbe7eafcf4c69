import { defineTool, type ITool, toolFailure, toolSuccess } from '@raf/core';
import * as z from 'zod';
import { builtinManifest } from '../runtime-policy/builtin-manifests.js';
import { defaultToolOperations } from '../workspace/operations/local-tool-operations.js';
import { PathRejectedError, resolveInScope } from '../workspace/path-guard.js';
import type { AgentSkill } from './agent-skill.js';

const RESOURCE_MAX_BYTES = 512 * 1024;

function finder(skills: readonly AgentSkill[]) {
  return (name: string) => skills.find((s) => s.metadata.name === name);
}

function unknownSkill(name: string, skills: readonly AgentSkill[]) {
  return toolFailure(
    `Unknown skill '${name}'. Available: ${skills.map((s) => s.metadata.name).join(', ') || '(none)'}`,
  );
}

/** `load_skill {skill_name}` → `{skill_name, instructions, resources}`. */
export function createLoadSkillTool(skills: readonly AgentSkill[]): ITool {
  const find = finder(skills);
  return defineTool({
    name: 'load_skill',
    description: "Load a skill's full instructions by name (see Available Skills).",
    parameters: z.object({ skill_name: z.string().describe('Name of the skill') }),
    manifest: builtinManifest('load_skill'),
    kind: 'skills',
    execute: ({ skill_name }) => {
      const skill = find(skill_name);
      if (!skill) return unknownSkill(skill_name, skills);
      return toolSuccess({ skill_name, instructions: skill.instructions, resources: skill.resources });
    },
  });
}

/** Reads a resource of a skill through the path guard, confined to the skill's folder. */
async function readResource(skill: AgentSkill, path: string, signal: AbortSignal): Promise<string> {
  if (skill.inlineResources) {
    const content = skill.inlineResources[path];
    if (content === undefined)
      throw new PathRejectedError(`skill '${skill.metadata.name}' has no resource '${path}'`);
    return content;
  }
  const directory = skill.directory as string;
  const ops = defaultToolOperations();
  const scope = { root: directory, name: skill.metadata.name, policy: 'DenyOutside' as const };
  const resolved = await resolveInScope(scope, path, ops.fs);
  if (resolved.scope !== 'workspace')
    throw new PathRejectedError(`Access denied: '${path}' is outside skill '${skill.metadata.name}'`);
  if (!resolved.exists)
    throw new PathRejectedError(`skill '${skill.metadata.name}' has no resource '${path}'`);
  if (resolved.kind !== 'file') throw new PathRejectedError(`'${path}' is not a regular file`);
  return (await ops.fs.readFile(resolved.real, { maxBytes: RESOURCE_MAX_BYTES, signal })).toString('utf8');
}

/** `read_skill_resource {skill_name, resource_path}` → `{content}` (only offered when a skill has resources). */
export function createReadSkillResourceTool(skills: readonly AgentSkill[]): ITool {
  const find = finder(skills);
  return defineTool({
    name: 'read_skill_resource',
    description: "Read a file from a skill's references/ or assets/ folder.",
    parameters: z.object({
      skill_name: z.string().describe('Name of the skill'),
      resource_path: z.string().describe('Path inside the skill folder, e.g. "references/api.md"'),
    }),
    manifest: builtinManifest('read_skill_resource'),
    kind: 'skills',
    execute: async ({ skill_name, resource_path }, { signal }) => {
      const skill = find(skill_name);
      if (!skill) return unknownSkill(skill_name, skills);
      try {
        return toolSuccess({
          skill_name,
          resource_path,
          content: await readResource(skill, resource_path, signal),
        });
      } catch (error) {
        if (signal.aborted) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        return toolFailure(
          code === 'EFBIG' || code === 'ENOTREG'
            ? `'${resource_path}': ${(error as Error).message}`
            : (error as Error).message,
        );
      }
    },
  });
}
