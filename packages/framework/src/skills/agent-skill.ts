import { stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { ConfigError } from '@raf/core';
import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { parseYamlLimited } from '../io/parse-yaml.js';
import { lazyRequire } from '../lazy-require.js';
import { ConfinedFolder } from '../workspace/confined-folder.js';

// Loaded with the first SKILL.md read: importing the framework does not parse a YAML library.
const yaml = lazyRequire<typeof import('yaml')>('yaml');

/** SKILL.md frontmatter (the Agent Skills format). */
export interface SkillMetadata {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
}

export interface AgentSkill {
  metadata: SkillMetadata;
  /** The body of SKILL.md: what `load_skill` returns. */
  instructions: string;
  /** The skill's folder; absent for skills built in code. */
  directory?: string;
  /** Files under `references/` and `assets/`, relative to the skill folder. */
  resources: string[];
  /** In-memory resources of a skill built in code, by relative path. */
  inlineResources?: Readonly<Record<string, string>>;
}

// Built on first use (a SKILL.md read): importing the framework builds no schema.
const metadataSchema = onFirstUse(() =>
  z.object({
    name: z.string().trim().min(1),
    description: z.string().trim().min(1),
    license: z.string().optional(),
    compatibility: z.string().optional(),
    metadata: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String))
      .optional(),
  }),
);

const RESOURCE_FOLDERS = ['references', 'assets'] as const;
const MAX_RESOURCES = 1000;

/** The largest SKILL.md read. */
const SKILL_MAX_BYTES = 1024 * 1024;
const NO_SIGNAL = new AbortController().signal;

/** Regular files under `references/` and `assets/`, walked without following any link. */
async function listResources(folder: ConfinedFolder): Promise<string[]> {
  const found: string[] = [];
  for (const under of RESOURCE_FOLDERS) {
    if ((await folder.entry(under))?.kind !== 'directory') continue;
    const walk = await folder.walk({ signal: NO_SIGNAL, under, maxFiles: MAX_RESOURCES - found.length });
    found.push(...walk.files.map((f) => f.path));
  }
  return found.sort();
}

/** Splits SKILL.md into its YAML frontmatter and body; errors name the file and line. */
export function parseSkillMarkdown(
  text: string,
  file: string,
): { metadata: SkillMetadata; instructions: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match)
    throw new ConfigError(`${file}:1: SKILL.md must start with YAML frontmatter between '---' lines`);
  const { isMap } = yaml();
  // The shared YAML limits (alias count, size): a SKILL.md is text from outside.
  const { document, lines, value, problems } = parseYamlLimited(match[1] ?? '');
  const problem = problems[0];
  if (problem || !document || !lines) {
    throw new ConfigError(
      `${file}:${(problem?.line ?? 1) + 1}: invalid YAML frontmatter: ${problem?.message ?? 'unreadable'}`,
    );
  }
  if (!isMap(document.contents))
    throw new ConfigError(`${file}:2: the frontmatter must be a mapping (name: …, description: …)`);
  const parsed = metadataSchema().safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || '(frontmatter)';
    const node = issue?.path.length ? document.getIn(issue.path, true) : undefined;
    const at = (node as { range?: [number] } | undefined)?.range?.[0];
    const line = at === undefined ? 2 : lines.linePos(at).line + 1;
    throw new ConfigError(`${file}:${line}: field '${field}': ${issue?.message ?? 'invalid'}`);
  }
  const metadata: SkillMetadata = { name: parsed.data.name, description: parsed.data.description };
  if (parsed.data.license !== undefined) metadata.license = parsed.data.license;
  if (parsed.data.compatibility !== undefined) metadata.compatibility = parsed.data.compatibility;
  if (parsed.data.metadata !== undefined) metadata.metadata = parsed.data.metadata;
  return { metadata, instructions: text.slice(match[0].length).trim() };
}

/** Loads one skill folder (it holds SKILL.md). */
export async function loadSkillDirectory(directory: string): Promise<AgentSkill> {
  const dir = resolve(directory);
  const file = join(dir, 'SKILL.md');
  // A SKILL.md that is a link or a FIFO is refused (no link followed, nothing waited on).
  const folder = new ConfinedFolder(dir);
  const bytes = await folder
    .readFile('SKILL.md', { maxBytes: SKILL_MAX_BYTES, signal: NO_SIGNAL })
    .catch((error: NodeJS.ErrnoException) => {
      throw new ConfigError(
        `${file}: cannot read the skill: ${error.code === 'ENOENT' ? 'no SKILL.md here' : error.message}`,
        { cause: error },
      );
    });
  const { metadata, instructions } = parseSkillMarkdown(bytes.toString('utf8'), file);
  return { metadata, instructions, directory: dir, resources: await listResources(folder) };
}

export interface ScanSkillsOptions {
  signal?: AbortSignal;
  /**
   * Told of what is skipped and why (a skill folder or SKILL.md that is a symbolic link). Without
   * it the skip is silent; throw from it to make the skip an error (strict mode).
   */
  onWarning?: (message: string) => void;
}

/** Why a link is skipped, said the same way wherever a skill is found behind one. */
const LINK_REASON =
  'links are not followed (a link could lead outside the skills folder), so the skill is skipped';

/**
 * Loads `directory` as one skill when it holds SKILL.md, else every immediate subfolder that
 * holds one (a folder of skills). Two skills with one name are an error. Nothing below
 * `directory` is reached through a link: a skill folder or SKILL.md that is one is skipped and
 * reported to `onWarning` (the folder itself may be a link: the configuration names it).
 */
export async function scanSkills(directory: string, options: ScanSkillsOptions = {}): Promise<AgentSkill[]> {
  const dir = resolve(directory);
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new ConfigError(`${dir}: the skills folder does not exist`);
  const warn = options.onWarning ?? (() => {});
  const folder = new ConfinedFolder(dir);
  const own = await folder.entry('SKILL.md');
  if (own?.kind === 'symlink') {
    warn(`${join(dir, 'SKILL.md')}: SKILL.md is a symbolic link; ${LINK_REASON}`);
    return [];
  }
  // A SKILL.md that is not a regular file (a FIFO, a folder) is loadSkillDirectory's located error.
  if (own) return [await loadSkillDirectory(dir)];
  const entries = (await folder.list('')).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const skills: AgentSkill[] = [];
  for (const entry of entries) {
    options.signal?.throwIfAborted();
    const path = join(dir, entry.name);
    if (entry.kind === 'symlink') {
      // Only the link's kind is looked at (stat reads no file), to stay quiet about a link to a file.
      if ((await stat(path).catch(() => undefined))?.isDirectory())
        warn(`${path}: the skill folder is a symbolic link; ${LINK_REASON}`);
      continue;
    }
    if (entry.kind !== 'dir') continue;
    const skillFile = await folder.entry(`${entry.name}/SKILL.md`);
    if (!skillFile) continue;
    if (skillFile.kind === 'symlink') {
      warn(`${join(path, 'SKILL.md')}: SKILL.md is a symbolic link; ${LINK_REASON}`);
      continue;
    }
    skills.push(await loadSkillDirectory(path));
  }
  const seen = new Map<string, string>();
  for (const skill of skills) {
    const other = seen.get(skill.metadata.name);
    if (other)
      throw new ConfigError(
        `${dir}: two skills are named '${skill.metadata.name}' (${basename(other)} and ${basename(skill.directory ?? '')})`,
      );
    seen.set(skill.metadata.name, skill.directory ?? '');
  }
  return skills;
}

/** A skill built in code, with optional in-memory resources (`references/…`, `assets/…`). */
export function defineSkill(
  metadata: SkillMetadata,
  instructions: string,
  resources: Record<string, string> = {},
): AgentSkill {
  return {
    metadata,
    instructions,
    resources: Object.keys(resources).sort(),
    inlineResources: { ...resources },
  };
}
