import { defineTool, type ITool, toolFailure, toolSuccess } from '@raf/core';
import * as z from 'zod';
import { PathRejectedError } from '../errors/tool-errors.js';
import { builtinManifest } from '../runtime-policy/builtin-manifests.js';
import { ConfinedFolder } from '../workspace/confined-folder.js';
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
  // The skill folder as a confined folder: no link below it is followed (a link planted in a skill
  // or the memory bundle cannot reach outside), only regular files are read, without blocking.
  const folder = new ConfinedFolder(skill.directory as string);
  let rel: string;
  try {
    rel = ConfinedFolder.check(path);
  } catch {
    throw new PathRejectedError(`Access denied: '${path}' is outside skill '${skill.metadata.name}'`);
  }
  try {
    return (await folder.readFile(rel, { maxBytes: RESOURCE_MAX_BYTES, signal })).toString('utf8');
  } catch (error) {
    if (ConfinedFolder.isMissing(error))
      throw new PathRejectedError(`skill '${skill.metadata.name}' has no resource '${path}'`);
    throw error;
  }
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
