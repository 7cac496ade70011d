// Small formatters and an element builder shared by the pages.

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export function num(n) {
  return Number(n || 0).toLocaleString('en-US');
}

// short: 1234 -> 1.2k, 5600000 -> 5.6M
export function short(n) {
  n = Number(n || 0);
  const a = Math.abs(n);
  if (a >= 1e9) return (n / 1e9).toFixed(1) + 'G';
  if (a >= 1e6) return (n / 1e6).toFixed(1) + 'M';
  if (a >= 1e3) return (n / 1e3).toFixed(1) + 'k';
  return a >= 10 || n === Math.round(n) ? String(Math.round(n)) : n.toFixed(1);
}

export function bytes(n) {
  n = Number(n || 0);
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return (i === 0 ? String(Math.round(n)) : n.toFixed(1)) + ' ' + units[i];
}

export function pct(f) {
  return Math.round(Math.max(0, Math.min(1, Number(f || 0))) * 100) + '%';
}

export function ms(n) {
  n = Number(n || 0);
  if (n < 1000) return n + ' ms';
  if (n < 60000) return (n / 1000).toFixed(1) + ' s';
  return Math.floor(n / 60000) + ' min ' + Math.round((n % 60000) / 1000) + ' s';
}

export function time(iso) {
  if (!iso || iso.startsWith('0001-')) return '';
  const d = new Date(iso);
  return isNaN(d) ? '' : d.toLocaleString();
}

export function state(s) {
  return el('span', { class: 'state ' + (s || ''), text: s || '—' });
}

// backpressure levels, as Flink's dashboard shows them: OK up to 10% of the time, LOW up to
// 50%, HIGH above.
export function level(f) {
  f = Number(f || 0);
  return f > 0.5 ? 'HIGH' : f > 0.1 ? 'LOW' : 'OK';
}
