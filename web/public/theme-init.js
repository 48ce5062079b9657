// The theme before the first paint (no flash); the lab's theme.ts takes
// over from here.  A file of its own, not an inline script, so that the
// page's Content-Security-Policy allows no inline script at all.
try {
  var t = localStorage.getItem('vaxlab-theme');
  if (t !== 'light' && t !== 'dark') t = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  document.documentElement.dataset.theme = t;
} catch (e) {}
