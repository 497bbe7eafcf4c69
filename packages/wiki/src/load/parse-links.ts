const LINK = /\[\[([^\]\n]+?)\]\]/g;

/** Text outside fenced code blocks and inline code spans, where `[[...]]` means a link. */
function prose(markdown: string): string {
  return markdown
    .replace(/^( {0,3})(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n {0,3}\2[^\n]*|$)/gm, '')
    .replace(/`[^`\n]*`/g, '');
}

/**
 * The `[[target]]` links of a page, in order, without duplicates: `[[target|shown text]]` and
 * `[[target#section]]` link to `target`; links inside code are not links.
 */
export function parseLinks(markdown: string): string[] {
  const targets: string[] = [];
  for (const match of prose(markdown).matchAll(LINK)) {
    const target = (match[1] as string).split('|')[0]?.split('#')[0]?.trim();
    if (target && !targets.includes(target)) targets.push(target);
  }
  return targets;
}
