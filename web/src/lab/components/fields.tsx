// Small pieces the settings forms share.

import type { FocusEvent, FormEvent, KeyboardEvent } from 'react';

import type { LabController } from '../controller';

/** The error under an input: its first clause (the rest, the kernel's reasons, on hover). */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  const short = message.split(' (')[0]!;
  return <span className="field-error" id={id} title={short === message ? undefined : message}>{short}</span>;
}

/** The help of the field that has the focus, shown under it (screen readers get it from aria-describedby). */
export function FieldHelp({ text }: { text: string }) {
  return <p className="field-help" aria-hidden="true">{text}</p>;
}

/** Enter in a text input of the settings runs the experiment (as the Run button would). */
export function onEnterRun(e: KeyboardEvent<HTMLElement>, lab: LabController): void {
  if (e.key !== 'Enter' || e.nativeEvent.isComposing || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
  const target = e.target as HTMLElement;
  if (!(target instanceof HTMLInputElement) || (target.type !== 'text' && target.type !== 'number')) return;
  e.preventDefault();
  if (lab.canRun()) lab.run();
}

/** What both settings forms do with their events: submit and Enter run the
 *  experiment; the focused field's id is reported so its help can show. */
export function settingsFormEvents(lab: LabController, setFocused: (id: string | null) => void) {
  return {
    onSubmit: (e: FormEvent<HTMLFormElement>) => {
      e.preventDefault();
      lab.run();
    },
    onKeyDown: (e: KeyboardEvent<HTMLFormElement>) => onEnterRun(e, lab),
    onFocus: (e: FocusEvent<HTMLFormElement>) => setFocused(e.target.id || null),
    onBlur: () => setFocused(null),
  };
}
