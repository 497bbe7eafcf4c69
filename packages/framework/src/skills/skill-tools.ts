import { defineTool, type ITool, toolFailure, toolSuccess } from '@raf/core';
import * as z from 'zod';
import { PathRejectedError } from '../errors/tool-errors.js';
import { builtinManifest } from '../runtime-policy/builtin-manifests.js';
import { ConfinedFolder } from '../workspace/confined-folder.js';
import type { AgentSkill } from './agent-skill.js';

const RESOURCE_MAX_BYTES = 512 * 1024;

/** Where a skill tool looks its skills up: one provider's list, or several (see `combineSkillTools`). */
type SkillLists = readonly (readonly AgentSkill[])[];

/**
 * The skill lists behind each `load_skill` / `read_skill_resource` made here. The lists are read
 * at call time (the memory provider refreshes its own before each run), so a combined tool sees
 * the same skills as its parts.
 */
const skillListsOf = new WeakMap<ITool, SkillLists>();

function all(lists: SkillLists): AgentSkill[] {
  return lists.flat();
}

function finder(lists: SkillLists) {
  return (name: string) => all(lists).find((s) => s.metadata.name === name);
}

function unknownSkill(name: string, lists: SkillLists) {
  return toolFailure(
    `Unknown skill '${name}'. Available: ${
      all(lists)
        .map((s) => s.metadata.name)
        .join(', ') || '(none)'
    }`,
  );
}

/** `load_skill {skill_name}` → `{skill_name, instructions, resources}`. */
export function createLoadSkillTool(skills: readonly AgentSkill[]): ITool {
  return loadSkillTool([skills]);
}

function loadSkillTool(lists: SkillLists): ITool {
  const find = finder(lists);
  const tool = defineTool({
    name: 'load_skill',
    description: "Load a skill's full instructions by name (see Available Skills).",
    parameters: z.object({ skill_name: z.string().describe('Name of the skill') }),
    manifest: builtinManifest('load_skill'),
    kind: 'skills',
    execute: ({ skill_name }) => {
      const skill = find(skill_name);
      if (!skill) return unknownSkill(skill_name, lists);
      return toolSuccess({ skill_name, instructions: skill.instructions, resources: skill.resources });
    },
  });
  skillListsOf.set(tool, lists);
  return tool;
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
  return readSkillResourceTool([skills]);
}

function readSkillResourceTool(lists: SkillLists): ITool {
  const find = finder(lists);
  const tool = defineTool({
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
      if (!skill) return unknownSkill(skill_name, lists);
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
  skillListsOf.set(tool, lists);
  return tool;
}

/**
 * One tool for two skill tools of the same name (a `kind: skills` context and the super-brain
 * memory both inject `load_skill`): it finds a skill in either, the earlier's first. Without it
 * the first tool silently replaced the second, and `load_skill("super-brain")` answered "Unknown
 * skill". `undefined` when the two are not both skill tools made here: a real name clash.
 */
export function combineSkillTools(earlier: ITool, later: ITool): ITool | undefined {
  const first = skillListsOf.get(earlier);
  const second = skillListsOf.get(later);
  if (!first || !second || earlier.name !== later.name) return undefined;
  // The same two tools give the same joined one: a run does not rebuild it (nor do the rounds of
  // a run whose provider tools are read again, which then see the tools unchanged).
  let joined = combined.get(earlier);
  const known = joined?.get(later);
  if (known) return known;
  const lists = [...first, ...second];
  const tool = earlier.name === 'load_skill' ? loadSkillTool(lists) : readSkillResourceTool(lists);
  if (!joined) {
    joined = new WeakMap();
    combined.set(earlier, joined);
  }
  joined.set(later, tool);
  return tool;
}

/** Joined skill tools, by the two they join (tools live as long as their agent). */
const combined = new WeakMap<ITool, WeakMap<ITool, ITool>>();

/** Whether a tool is a `load_skill` / `read_skill_resource` that `combineSkillTools` can join. */
export function isSkillTool(tool: ITool): boolean {
  return skillListsOf.has(tool);
}
