import type { Readability } from '@mozilla/readability';
import type TurndownService from 'turndown';
import { requireCjs } from '../cjs.js';
import type { DomDocument } from './dom.js';

export interface HtmlLibraries {
  parseHTML: (html: string) => { document: DomDocument };
  Readability: typeof Readability;
  turndown: TurndownService;
}

let loading: Promise<HtmlLibraries> | undefined;

/**
 * The DOM, Readability and Turndown, loaded on the first `web_fetch` that needs them: building
 * or inspecting an agent (and `raf validate`'s cold start) never pays for them.
 */
export function htmlLibraries(): Promise<HtmlLibraries> {
  loading ??= (async () => {
    const [{ parseHTML }, { Readability }] = await Promise.all([
      import('linkedom'),
      import('@mozilla/readability'),
    ]);
    const Turndown = requireCjs('turndown') as typeof TurndownService;
    type Plugin = TurndownService.Plugin; // turndown-plugin-gfm ships no types
    const gfm = requireCjs('turndown-plugin-gfm') as Record<
      'tables' | 'strikethrough' | 'taskListItems',
      Plugin
    >;
    const turndown = new Turndown({
      headingStyle: 'atx',
      codeBlockStyle: 'fenced',
      bulletListMarker: '-',
      emDelimiter: '_',
    });
    // Tables as GitHub tables (docs pages are full of them), ~~strikethrough~~, task lists.
    turndown.use([gfm.tables, gfm.strikethrough, gfm.taskListItems]);
    // Leftovers a model cannot use: forms, media without a text form.
    turndown.remove([
      'script',
      'style',
      'noscript',
      'template',
      'iframe',
      'form',
      'button',
      'select',
      'svg',
    ] as never);
    return { parseHTML: parseHTML as unknown as HtmlLibraries['parseHTML'], Readability, turndown };
  })();
  return loading;
}
