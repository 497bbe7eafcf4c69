import type { ComponentChildren } from 'preact';

/**
 * An element that shows one field of the API's JSON. `data-field` names it and `data-value` holds
 * the JSON value it shows, so the browser tests compare the page to the API field by field.
 */
export function Field(props: { name: string; value: unknown; children?: ComponentChildren; class?: string }) {
  return (
    <span class={props.class} data-field={props.name} data-value={JSON.stringify(props.value ?? null)}>
      {props.children ?? (props.value === null || props.value === undefined ? '—' : String(props.value))}
    </span>
  );
}
