import { describe, expect, it } from 'vitest';
import { evaluate, parseExpression } from './index.js';

const run = (text: string, vars: Record<string, unknown> = {}) =>
  evaluate(parseExpression(text), (name) => vars[name] as never);

describe('expressions', () => {
  it('evaluates paths, calls, arithmetic, comparisons and logic', () => {
    const vars = {
      Local: { age: '20', name: 'Ada', tags: ['a', 'b'] },
      System: { LastMessage: { Text: 'hi' } },
    };
    expect(run('Concat(Local.name, ", ", System.LastMessage.Text, "!")', vars)).toBe('Ada, hi!');
    expect(run('Local.age >= 18', vars)).toBe(true);
    expect(run('Local.age + 1', vars)).toBe(21);
    expect(run('Local.name & " " & Upper("x")', vars)).toBe('Ada X');
    expect(run('Not(Local.age < 18) And Len(Local.tags) = 2 || false', vars)).toBe(true);
    expect(run('If(Local.age > 65, "senior", Local.age > 17, "adult", "minor")', vars)).toBe('adult');
    expect(run('"b" in Local.tags', vars)).toBe(true);
    expect(run('Local.tags[1]', vars)).toBe('b');
    expect(run('{ n: -2 * 3, list: [1, "two"] }', vars)).toEqual({ n: -6, list: [1, 'two'] });
    expect(run('Local.missing.deep = Blank', vars)).toBe(true);
    expect(run('"say ""hi"""')).toBe('say "hi"');
  });

  it('reports syntax errors with their offset and never runs host code', () => {
    expect(() => parseExpression('Concat(1, ')).toThrow(/ends too early/);
    expect(() => parseExpression('1 +* 2')).toThrow(/unexpected "\*"/);
    expect(() => parseExpression('a ; b')).toThrow(/unexpected character ";"/);
    expect(() => run('constructor.constructor("return process")()')).toThrow();
    expect(run('Local.__proto__', { Local: {} })).toBeUndefined();
    expect(() => run('Eval("1")')).toThrow(/unknown function Eval\(\)/);
    expect(() => run('"a" < 1')).toThrow(/cannot compare/);
  });
});
