import { useState } from 'preact/hooks';
import { useStudio } from '../context.js';
import { Field } from '../field.js';
import type { RunUpdate } from '../types.js';

export type Question = Extract<RunUpdate, { type: 'input-request' }>;
export type QuestionAction = 'accept' | 'decline' | 'cancel';
type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

interface Property {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  default?: unknown;
}

/** The fields of a form question's flat JSON Schema (MCP's requested schema is one object of primitives). */
function propertiesOf(request: Question): [string, Property][] {
  const properties = (request.schema?.properties ?? {}) as Record<string, Property>;
  return Object.entries(properties).filter(([, p]) => p && typeof p === 'object');
}

/** Only an https page is made a link; anything else is shown as text to copy if trusted. */
function httpsUrl(url: string | undefined): string | undefined {
  try {
    return url && new URL(url).protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** What a field shows first: the schema's default, else empty (a checkbox unticked). */
function initialValues(properties: [string, Property][]): Record<string, string | boolean> {
  return Object.fromEntries(
    properties.map(([name, p]) => [
      name,
      p.type === 'boolean'
        ? p.default === true
        : typeof p.default === 'string' || typeof p.default === 'number'
          ? String(p.default)
          : '',
    ]),
  );
}

/** The typed values as the schema's types (empty optional fields left out; the server checks the rest). */
function contentOf(
  values: Record<string, string | boolean>,
  properties: [string, Property][],
): Record<string, Json> {
  const content: Record<string, Json> = {};
  for (const [name, property] of properties) {
    const value = values[name];
    if (typeof value === 'boolean') content[name] = value;
    else if (value === undefined || value === '') continue;
    else content[name] = property.type === 'number' || property.type === 'integer' ? Number(value) : value;
  }
  return content;
}

/**
 * A tool's question to the user (SPEC §14.4): a form with the schema's fields, or a page to open
 * (shown, never opened by the studio; a link only for https). Submit, Decline or Cancel answer it
 * and the run goes on; an answer the server finds does not fit is said on the card.
 */
export function QuestionCard(props: {
  request: Question;
  answered?: QuestionAction | undefined;
  onAnswer: (action: QuestionAction, content?: Record<string, Json>) => Promise<void>;
}) {
  const studio = useStudio();
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const r = props.request;
  const properties = propertiesOf(r);
  const [values, setValues] = useState(() => initialValues(properties));
  const set = (name: string, value: string | boolean) => setValues((v) => ({ ...v, [name]: value }));
  if (props.answered)
    return (
      <p class="muted" data-answered={r.callId}>
        {studio.t(
          props.answered === 'accept' ? 'answered' : props.answered === 'decline' ? 'declined' : 'cancelled',
        )}
        : {r.message}
      </p>
    );
  const required = new Set((r.schema?.required as string[] | undefined) ?? []);
  const answer = async (action: QuestionAction, content?: Record<string, Json>) => {
    setSending(true);
    setError(null);
    try {
      await props.onAnswer(action, content);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setSending(false);
    }
  };
  const link = httpsUrl(r.url);
  const id = (name: string) => `q-${encodeURIComponent(r.callId)}-${name}`;
  return (
    <form
      class="question card"
      data-question={r.callId}
      onSubmit={(event) => {
        event.preventDefault();
        void answer('accept', r.mode === 'form' ? contentOf(values, properties) : undefined);
      }}
    >
      <h3>
        {studio.t('question')}: <Field name="question.source" value={r.source} />
      </h3>
      <p>
        <Field name="question.message" value={r.message} />
      </p>
      {r.mode === 'url' ? (
        <p>
          {studio.t(link ? 'openYourself' : 'notHttps')}:{' '}
          {link ? (
            <a
              href={link}
              target="_blank"
              rel="noopener noreferrer"
              data-field="question.url"
              data-value={JSON.stringify(link)}
            >
              {link}
            </a>
          ) : (
            <code data-field="question.url" data-value={JSON.stringify(r.url ?? null)}>
              {r.url}
            </code>
          )}
        </p>
      ) : (
        properties.map(([name, p]) => (
          <p key={name} class="question-field">
            <label for={id(name)}>
              {p.title ?? name}
              {required.has(name) ? ' *' : ''}
            </label>
            {p.type === 'boolean' ? (
              <input
                id={id(name)}
                name={name}
                type="checkbox"
                checked={values[name] === true}
                onChange={(e) => set(name, (e.target as HTMLInputElement).checked)}
              />
            ) : Array.isArray(p.enum) ? (
              <select
                id={id(name)}
                name={name}
                required={required.has(name)}
                value={String(values[name] ?? '')}
                onChange={(e) => set(name, (e.target as HTMLSelectElement).value)}
              >
                {!required.has(name) && <option value="">—</option>}
                {p.enum.map((v) => (
                  <option key={String(v)} value={String(v)}>
                    {String(v)}
                  </option>
                ))}
              </select>
            ) : p.type === 'number' || p.type === 'integer' ? (
              <input
                id={id(name)}
                name={name}
                type="number"
                step={p.type === 'integer' ? 1 : 'any'}
                required={required.has(name)}
                value={String(values[name] ?? '')}
                onInput={(e) => set(name, (e.target as HTMLInputElement).value)}
              />
            ) : (
              <input
                id={id(name)}
                name={name}
                type="text"
                required={required.has(name)}
                value={String(values[name] ?? '')}
                onInput={(e) => set(name, (e.target as HTMLInputElement).value)}
              />
            )}
            {p.description && <small class="muted">{p.description}</small>}
          </p>
        ))
      )}
      {error && (
        <p class="error" role="alert" data-question-error="">
          {error}
        </p>
      )}
      <p class="actions">
        <button type="submit" class="primary" disabled={sending}>
          {studio.t(r.mode === 'url' ? 'done' : 'submit')}
        </button>
        <button type="button" disabled={sending} onClick={() => void answer('decline')}>
          {studio.t('decline')}
        </button>
        <button type="button" disabled={sending} onClick={() => void answer('cancel')}>
          {studio.t('cancel')}
        </button>
      </p>
    </form>
  );
}
