import { ConfigError, type ContextResult, type IContextProvider, type ITool } from '@raf/core';
import { type AgentSkill, type ScanSkillsOptions, scanSkills } from './agent-skill.js';
import { createLoadSkillTool, createReadSkillResourceTool } from './skill-tools.js';

export const SKILLS_PROVIDER_NAME = 'AgentSkillsProvider';

/** The text that advertises the skills: `## Available Skills`, a hint, one bullet per skill. */
export function skillsInstructions(skills: readonly AgentSkill[], withResources: boolean): string {
  const lines = [
    '## Available Skills',
    "Call load_skill(skill_name) to load a skill's full instructions before you use it.",
    ...skills.map((s) => `- **${s.metadata.name}**: ${s.metadata.description}`),
  ];
  if (withResources) {
    lines.push(
      'Call read_skill_resource(skill_name, resource_path) to read a file a skill lists under references/ or assets/.',
    );
  }
  return lines.join('\n');
}

/**
 * Skills (rule 2): advertises them in the instructions and injects `load_skill` (always) and
 * `read_skill_resource` (only when some skill has `references/` or `assets/`). The tools are
 * not scope tools, so a workspace never routes them.
 */
export class AgentSkillsProvider implements IContextProvider {
  readonly name = SKILLS_PROVIDER_NAME;
  readonly kind = 'skills';
  readonly injectsTools = true;
  readonly skills: readonly AgentSkill[];
  readonly tools: readonly ITool[];
  private readonly text: string;

  constructor(skills: readonly AgentSkill[]) {
    const names = new Set<string>();
    for (const skill of skills) {
      if (names.has(skill.metadata.name))
        throw new ConfigError(`two skills are named '${skill.metadata.name}'`);
      names.add(skill.metadata.name);
    }
    this.skills = [...skills];
    const withResources = skills.some((s) => s.resources.length > 0);
    this.tools = withResources
      ? [createLoadSkillTool(this.skills), createReadSkillResourceTool(this.skills)]
      : [createLoadSkillTool(this.skills)];
    this.text = skillsInstructions(this.skills, withResources);
  }

  /**
   * Loads one skill folder or a folder of skills (several folders are merged in order). A skill
   * behind a symbolic link is skipped and named to `options.onWarning`.
   */
  static async scan(
    directories: string | readonly string[],
    options: ScanSkillsOptions = {},
  ): Promise<AgentSkillsProvider> {
    const list = typeof directories === 'string' ? [directories] : directories;
    const skills: AgentSkill[] = [];
    for (const directory of list) skills.push(...(await scanSkills(directory, options)));
    return new AgentSkillsProvider(skills);
  }

  onInvoking(): ContextResult {
    return { instructions: this.text, tools: [...this.tools] };
  }
}
