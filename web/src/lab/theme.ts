// Light and dark: the system's preference until the user picks one with the
// toggle (remembered in localStorage).  The page's CSS keys on <html data-theme>.

export type Theme = 'light' | 'dark';

const KEY = 'vaxlab-theme';

export function initialTheme(): Theme {
  try {
    const saved = localStorage.getItem(KEY);
    if (saved === 'light' || saved === 'dark') return saved;
  } catch {
    // Storage may be off; fall through to the system's preference.
  }
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  document.documentElement.style.colorScheme = theme;
}

export function saveTheme(theme: Theme): void {
  try {
    localStorage.setItem(KEY, theme);
  } catch {
    // Not remembered; the toggle still works for this page.
  }
}

/** Colours for xterm (it cannot read CSS variables). */
export function terminalColors(theme: Theme): { background: string; foreground: string; cursor: string; selectionBackground: string } {
  return theme === 'dark'
    ? { background: '#0f1419', foreground: '#d8dee6', cursor: '#d8dee6', selectionBackground: '#3a4a5e' }
    : { background: '#fbfbf8', foreground: '#1d232b', cursor: '#1d232b', selectionBackground: '#c9d8ea' };
}
