/**
 * A "billion laughs" YAML text: nine levels of nine aliases each, a few hundred bytes that expand
 * to 9^9 strings; the keys start with `key`. The limit trips at its third line (the first alias
 * of a node that itself holds aliases).
 */
export function yamlBomb(key = 'x-bomb'): string {
  const lines = [`${key}-a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]`];
  const names = 'abcdefghi';
  for (let i = 1; i < names.length; i++) {
    const previous = `*${names[i - 1]}`;
    lines.push(`${key}-${names[i]}: &${names[i]} [${Array(9).fill(previous).join(',')}]`);
  }
  return `${lines.join('\n')}\n`;
}
