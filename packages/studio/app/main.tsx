import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { type Studio, StudioContext } from './context.js';
import { t } from './i18n.js';
import { AgentPage } from './pages/agent-page.js';
import { ConversationPage } from './pages/conversation-page.js';
import { ToolsPage } from './pages/tools-page.js';
import './styles.css';
import type { AgentSummary, Labels, Lang, StudioConfig } from './types.js';

const PAGES = ['tools', 'agent', 'conversation'] as const;
type Page = (typeof PAGES)[number];

const pageOfHash = (): Page => {
  const name = location.hash.replace(/^#\/?/, '');
  return (PAGES as readonly string[]).includes(name) ? (name as Page) : 'tools';
};

const stored = (key: string) => {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
};
const store = (key: string, value: string) => {
  try {
    localStorage.setItem(key, value);
  } catch {}
};

function App() {
  const [page, setPage] = useState<Page>(pageOfHash);
  const [lang, setLang] = useState<Lang>(stored('raf-studio-lang') === 'zh-CN' ? 'zh-CN' : 'en');
  const [dark, setDark] = useState(
    stored('raf-studio-theme')
      ? stored('raf-studio-theme') === 'dark'
      : matchMedia('(prefers-color-scheme: dark)').matches,
  );
  const [labels, setLabels] = useState<Labels | null>(null);
  const [agents, setAgents] = useState<AgentSummary[]>([]);
  const [agentId, setAgentId] = useState<string | undefined>(undefined);
  const [config, setConfig] = useState<StudioConfig | null>(null);
  // Against a `raf serve` (`raf studio --server`) only conversations exist: the Tools and Agent
  // pages read the local agent files, which that server does not publish.
  const pages: readonly Page[] = config?.server ? ['conversation'] : PAGES;
  const shown: Page = pages.includes(page) ? page : 'conversation';
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const onHash = () => setPage(pageOfHash());
    addEventListener('hashchange', onHash);
    Promise.all([
      getJson<Labels>('/api/labels'),
      getJson<{ agents: AgentSummary[] }>('/api/agents'),
      getJson<StudioConfig>('/api/config'),
    ]).then(
      ([l, a, c]) => {
        setLabels(l);
        setAgents(a.agents);
        setConfig(c);
        // Started with an agent file: open on that agent, not the global Tools table.
        if (a.agents.length > 0 && location.hash.replace(/^#\/?/, '') === '')
          setPage(c.server ? 'conversation' : 'agent');
        setAgentId(a.agents.find((x) => x.kind === 'agent')?.id ?? a.agents[0]?.id);
      },
      (e: Error) => setError(e.message),
    );
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    document.documentElement.lang = lang;
    document.title = `${t(lang, 'title')} · ${t(lang, shown)}`;
    store('raf-studio-lang', lang);
  }, [lang, shown]);
  useEffect(() => {
    document.documentElement.dataset.theme = dark ? 'dark' : 'light';
    store('raf-studio-theme', dark ? 'dark' : 'light');
  }, [dark]);

  const studio: Studio | null = labels && config && { lang, labels, agents, agentId, setAgentId, config };
  return (
    <>
      <header>
        <h1>{t(lang, 'title')}</h1>
        <nav aria-label={t(lang, 'pages')}>
          {pages.map((p) => (
            <a key={p} href={`#/${p}`} aria-current={p === shown ? 'page' : undefined}>
              {t(lang, p)}
            </a>
          ))}
        </nav>
        {config?.server && (
          <p class="muted" data-server={config.server}>
            {t(lang, 'servedBy')} {config.server}
          </p>
        )}
        <div class="switches">
          <label>
            {t(lang, 'language')}{' '}
            <select value={lang} onChange={(e) => setLang((e.target as HTMLSelectElement).value as Lang)}>
              <option value="en">English</option>
              <option value="zh-CN">中文</option>
            </select>
          </label>
          <label>
            <input
              type="checkbox"
              checked={dark}
              onChange={(e) => setDark((e.target as HTMLInputElement).checked)}
            />{' '}
            {t(lang, 'theme')}
          </label>
        </div>
      </header>
      <main id="page" data-page={shown}>
        <h2 class="page-title">{t(lang, shown)}</h2>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        {!studio && !error && <p role="status">{t(lang, 'loading')}</p>}
        {studio && (
          <StudioContext.Provider value={studio}>
            {shown === 'tools' && <ToolsPage />}
            {shown === 'agent' && <AgentPage />}
            {shown === 'conversation' && <ConversationPage />}
          </StudioContext.Provider>
        )}
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
