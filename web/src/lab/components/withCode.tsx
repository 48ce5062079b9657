import type { ReactNode } from 'react';

/** Text with `commands` in backquotes, as the experiments' descriptions and notes write them, with those as code. */
export function withCode(text: string): ReactNode[] {
  return text.split(/`([^`]+)`/).map((part, i) => (i % 2 ? <code key={i}>{part}</code> : part));
}
