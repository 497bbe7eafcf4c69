import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { t, type Word } from './i18n.js';
import type { AgentSummary, Label, Labels, Lang, StudioConfig } from './types.js';

export interface Studio {
  lang: Lang;
  labels: Labels;
  agents: AgentSummary[];
  agentId: string | undefined;
  setAgentId(id: string): void;
  config: StudioConfig;
}

export const StudioContext = createContext<Studio | null>(null);

export function useStudio() {
  const studio = useContext(StudioContext);
  if (!studio) throw new Error('StudioContext is missing');
  return {
    ...studio,
    t: (word: Word) => t(studio.lang, word),
    label: (label: Label | null | undefined) => (label ? label[studio.lang] : '—'),
  };
}
