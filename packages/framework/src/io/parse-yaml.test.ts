import { ConfigError } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../memory/frontmatter.js';
import { parseSkillMarkdown } from '../skills/agent-skill.js';
import { yamlBomb } from '../test-support/yaml-bomb.js';
import { parseYaml, parseYamlLimited, YAML_LIMITS } from './parse-yaml.js';

describe('parseYamlLimited: the limits every YAML text is parsed within', () => {
  it('stops a billion-laughs document at the alias limit, fast, at the alias where nesting starts', () => {
    const started = Date.now();
    const parsed = parseYamlLimited(`title: x\n${yamlBomb()}`);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(parsed.value).toBeUndefined();
    expect(parsed.problems).toEqual([
      expect.objectContaining({
        code: 'ALIAS_LIMIT',
        line: 4,
        message: expect.stringMatching(/billion laughs/),
      }),
    ]);
  });

  it('keeps ordinary anchors and merge keys working', () => {
    const text = 'base: &base {a: 1}\nuse: {<<: *base, b: 2}\nlist: [*base, *base]\n';
    expect(parseYamlLimited(text, { merge: true }).value).toEqual({
      base: { a: 1 },
      use: { a: 1, b: 2 },
      list: [{ a: 1 }, { a: 1 }],
    });
  });

  it('refuses a text over the size cap without parsing it', () => {
    const big = `k: "${'x'.repeat(YAML_LIMITS.maxBytes)}"\n`;
    expect(parseYamlLimited(big).problems[0]).toMatchObject({ code: 'TOO_LARGE', line: 1 });
    expect(parseYamlLimited('k: 12345', { maxBytes: 4 }).problems[0]?.code).toBe('TOO_LARGE');
  });

  it('parseYaml throws a ConfigError naming file:line:column (shifted for frontmatter)', () => {
    expect(() => parseYaml(yamlBomb(), 'spec.yaml')).toThrow(/^spec\.yaml:3:\d+: too many alias expansions/);
    expect(() => parseYaml('a: [1', 'page.md', { lineOffset: 1 })).toThrow(/^page\.md:2:\d+: /);
    try {
      parseYaml('a: [1', 'x.yaml');
    } catch (error) {
      expect(ConfigError.isInstance(error)).toBe(true);
    }
  });
});

describe('the framework loaders use those limits', () => {
  it('a SKILL.md with an alias bomb in its frontmatter is a located ConfigError, fast', () => {
    const text = `---\nname: s\ndescription: d\n${yamlBomb()}---\nbody\n`;
    const started = Date.now();
    expect(() => parseSkillMarkdown(text, '/skills/s/SKILL.md')).toThrow(
      /^\/skills\/s\/SKILL\.md:6: invalid YAML frontmatter: too many alias expansions/,
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a memory page with an alias bomb in its frontmatter is a located problem, fast', () => {
    const started = Date.now();
    expect(parseFrontmatter(`---\ntype: note\n${yamlBomb()}---\nbody\n`)).toEqual({
      line: 5,
      message: expect.stringMatching(/^invalid YAML frontmatter: too many alias expansions/),
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
