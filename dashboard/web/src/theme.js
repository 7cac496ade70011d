// The theme before the first paint: the one chosen here before, else the system's.
(function () {
  var t = localStorage.getItem('strait.theme');
  if (t !== 'light' && t !== 'dark') t = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  document.documentElement.dataset.theme = t;
})();
