/**
 * The slice of the DOM this package touches. linkedom implements it; naming it here keeps the
 * package compiling without the DOM library (there is no browser), also for programs that compile
 * it from source.
 */
export interface DomNode {
  readonly nodeType: number;
  readonly nodeValue: string | null;
  readonly textContent: string | null;
  readonly firstChild: DomNode | null;
  readonly nextSibling: DomNode | null;
}

export interface DomElement extends DomNode {
  readonly tagName: string;
  readonly innerHTML: string;
  readonly outerHTML: string;
  readonly classList: Iterable<string> & { contains(name: string): boolean };
  getAttribute(name: string): string | null;
  getAttributeNames(): string[];
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  remove(): void;
  prepend(node: DomNode): void;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): Iterable<DomElement>;
}

export interface DomDocument {
  readonly title: string;
  readonly head: DomElement | null;
  readonly body: DomElement | null;
  readonly documentElement: DomElement;
  createElement(tag: string): DomElement;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): Iterable<DomElement>;
}
