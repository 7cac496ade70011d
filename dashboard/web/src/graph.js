// The job's DAG as an SVG drawing: vertices (plugins) inside their task groups (the chains
// fused into one task) inside their pipelines, laid out by dagre; exchange edges between
// groups carry their partitioning and the producer's backpressure.

import { graphlib, layout } from '@dagrejs/dagre';
import { short, bytes, pct, level, num } from './format.js';

const NS = 'http://www.w3.org/2000/svg';
const W = 250;
const H = 104;

function s(tag, attrs = {}, ...children) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null) e.setAttribute(k, String(v));
  }
  for (const c of children) {
    if (c !== undefined && c !== null) e.append(c);
  }
  return e;
}

function text(x, y, t, cls) {
  const e = s('text', { x, y, class: cls });
  e.textContent = t;
  return e;
}

const kindName = { source: 'Source', transform: 'Transform', sink: 'Sink' };

// groupsOf indexes a job's task groups by vertex: each vertex's group, pipeline and the
// group's numbers.
function groupsOf(job) {
  const byVertex = new Map();
  for (const p of job.pipelines) {
    for (const g of p.groups) {
      for (const v of g.vertices) byVertex.set(v, { pipeline: p, group: g });
    }
  }
  return byVertex;
}

// bottlenecks are the groups that hold back a producer: an exchange into them whose producer
// is backpressured HIGH while they themselves are not.
function bottlenecks(job) {
  const out = new Set();
  for (const p of job.pipelines) {
    const byId = new Map(p.groups.map((g) => [g.id, g]));
    for (const e of p.edges) {
      const from = byId.get(e.from);
      const to = byId.get(e.to);
      if (from && to && level(from.backPressured) === 'HIGH' && level(to.backPressured) !== 'HIGH') out.add(`${p.id}/${to.id}`);
    }
  }
  return out;
}

export function drawGraph(job) {
  const g = new graphlib.Graph({ compound: true, multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 46, ranksep: 110, marginx: 36, marginy: 46 });
  g.setDefaultEdgeLabel(() => ({}));
  const where = groupsOf(job);
  const exchanges = new Map(); // "from>to" vertex pair -> edge
  for (const p of job.pipelines) {
    g.setNode(`p${p.id}`, {});
    for (const gr of p.groups) {
      g.setNode(`p${p.id}g${gr.id}`, {});
      g.setParent(`p${p.id}g${gr.id}`, `p${p.id}`);
    }
    for (const e of p.edges) exchanges.set(`${e.fromVertex}>${e.toVertex}`, e);
  }
  for (const v of job.vertices) {
    g.setNode(`v${v.id}`, { width: W, height: H });
    if (v.pipeline && v.group) g.setParent(`v${v.id}`, `p${v.pipeline}g${v.group}`);
  }
  for (const v of job.vertices) {
    for (const i of v.inputs || []) {
      const ex = exchanges.get(`${i}>${v.id}`);
      g.setEdge(`v${i}`, `v${v.id}`, ex ? { width: 150, height: 18, labelpos: 'c' } : {}, `e${i}-${v.id}`);
    }
  }
  layout(g);
  const size = g.graph();
  const svg = s('svg', { width: Math.ceil(size.width), height: Math.ceil(size.height + 10), style: 'max-width: 100%; height: auto', viewBox: `0 -10 ${Math.ceil(size.width)} ${Math.ceil(size.height + 10)}`, role: 'img', 'aria-label': 'job graph' });

  const box = (id, padTop, pad) => {
    const n = g.node(id);
    return { x: n.x - n.width / 2 - pad, y: n.y - n.height / 2 - padTop, w: n.width + 2 * pad, h: n.height + padTop + pad };
  };
  for (const p of job.pipelines) {
    const b = box(`p${p.id}`, 34, 16);
    svg.append(
      s('g', { class: 'pipeline', 'data-pipeline': p.id },
        s('rect', { class: 'pipeline-box', x: b.x, y: b.y, width: b.w, height: b.h, rx: 10 }),
        text(b.x + 12, b.y + 18, `Pipeline ${p.id} · ${p.state}${p.restarts ? ` · ${p.restarts} restart${p.restarts > 1 ? 's' : ''}` : ''}`, 'title')),
    );
  }
  for (const p of job.pipelines) {
    for (const gr of p.groups) {
      const b = box(`p${p.id}g${gr.id}`, 18, 6);
      const fused = gr.vertices.length > 1 ? ' (fused)' : '';
      svg.append(
        s('g', { class: 'group', 'data-group': gr.id },
          s('rect', { class: 'group-box', x: b.x, y: b.y, width: b.w, height: b.h, rx: 8 }),
          text(b.x + 8, b.y + 13, `task group ${gr.id} ×${gr.parallelism}${fused}${gr.runners.length ? ' on ' + gr.runners.join(', ') : ''}`, 'small')),
      );
    }
  }
  for (const eo of g.edges()) {
    const e = g.edge(eo);
    const [from, to] = [Number(eo.v.slice(1)), Number(eo.w.slice(1))];
    const ex = exchanges.get(`${from}>${to}`);
    const pts = e.points;
    let d = `M${pts[0].x},${pts[0].y}`;
    for (let i = 1; i < pts.length; i++) d += ` L${pts[i].x},${pts[i].y}`;
    const last = pts[pts.length - 1];
    const prev = pts[pts.length - 2] || pts[0];
    const ang = Math.atan2(last.y - prev.y, last.x - prev.x);
    const head = `M${last.x},${last.y} L${last.x - 9 * Math.cos(ang - 0.4)},${last.y - 9 * Math.sin(ang - 0.4)} L${last.x - 9 * Math.cos(ang + 0.4)},${last.y - 9 * Math.sin(ang + 0.4)} Z`;
    const lv = ex ? level(ex.backPressured) : 'OK';
    const ge = s('g', { class: 'edge' + (ex ? ' exchange' : ''), 'data-from-vertex': from, 'data-to-vertex': to, 'data-backpressure': lv },
      s('path', { class: 'edge-line', d }),
      s('path', { class: 'edge-head', d: head }));
    if (ex) {
      const keys = ex.keyFields && ex.keyFields.length ? ` by ${ex.keyFields.join(', ')}` : '';
      ge.append(text(e.x - 70, e.y - 7, `${ex.partitioning}${keys}${lv !== 'OK' ? ` · backpressure ${pct(ex.backPressured)}` : ''}`, 'small'));
    }
    svg.append(ge);
  }
  const slow = bottlenecks(job);
  for (const v of job.vertices) {
    const n = g.node(`v${v.id}`);
    const { pipeline: p, group: gr } = where.get(v.id) || {};
    const x = n.x - W / 2;
    const y = n.y - H / 2;
    const bp = gr ? level(gr.backPressured) : 'OK';
    const isSlow = gr && p && slow.has(`${p.id}/${gr.id}`) && gr.vertices[0] === v.id;
    const node = s('g', {
      class: 'vertex', 'data-vertex': v.id, 'data-kind': v.kind, 'data-plugin': v.plugin,
      'data-busy': gr ? gr.busy.toFixed(3) : '0', 'data-backpressured': gr ? gr.backPressured.toFixed(3) : '0',
      'data-backpressure': bp, 'data-bottleneck': isSlow ? 'true' : 'false',
    });
    node.append(s('title', {}, `${v.name}\ntables: ${(v.tables || []).join(', ') || '—'}`));
    node.append(s('rect', { class: 'vertex-box', x, y, width: W, height: H, rx: 7 }));
    node.append(text(x + 10, y + 18, `${kindName[v.kind] || v.kind} · ${v.plugin}`, 'title'));
    node.append(text(x + 10, y + 34, `${v.where}${v.output ? ' → ' + v.output : ''} · ×${v.parallelism}`, 'small'));
    if (gr) {
      let rows, rate, b = '';
      if (v.kind === 'source') {
        rows = gr.rowsRead;
        rate = gr.rowsInPerSec;
        b = `${bytes(gr.bytesReadPerSec)}/s · ${bytes(gr.bytesRead)}`;
      } else if (v.kind === 'sink') {
        rows = gr.rowsWritten;
        rate = gr.rowsWrittenPerSec;
        b = `${bytes(gr.bytesWrittenPerSec)}/s · ${bytes(gr.bytesWritten)}`;
      } else {
        rows = gr.rowsIn;
        rate = gr.rowsInPerSec;
      }
      const verb = v.kind === 'source' ? 'read' : v.kind === 'sink' ? 'written' : 'in';
      const rt = text(x + 10, y + 53, `${num(rows)} rows ${verb} · ${short(rate)} rows/s`, 'rows');
      rt.setAttribute('data-rows', rows);
      rt.setAttribute('data-rate', rate.toFixed(1));
      node.append(rt);
      if (b) node.append(text(x + 10, y + 69, b, 'small'));
      // busy and backpressured shares of the group's time, as two bars
      const bw = (W - 20) / 2 - 6;
      node.append(s('rect', { x: x + 10, y: y + 80, width: bw, height: 6, rx: 3, style: 'fill: var(--line)' }));
      node.append(s('rect', { class: 'busy-bar', x: x + 10, y: y + 80, width: Math.max(0, bw * Math.min(1, gr.busy)), height: 6, rx: 3 }));
      node.append(text(x + 10, y + 99, `busy ${pct(gr.busy)}`, 'small'));
      const bx = x + 10 + bw + 12;
      node.append(s('rect', { x: bx, y: y + 80, width: bw, height: 6, rx: 3, style: 'fill: var(--line)' }));
      node.append(s('rect', { class: 'bp-bar', x: bx, y: y + 80, width: Math.max(0, bw * Math.min(1, gr.backPressured)), height: 6, rx: 3 }));
      node.append(text(bx, y + 99, `backpressured ${pct(gr.backPressured)}`, 'small'));
    }
    if (isSlow || (bp === 'HIGH' && gr && gr.vertices[gr.vertices.length - 1] === v.id)) {
      const label = isSlow ? 'BOTTLENECK' : 'BACKPRESSURED';
      const bw = label.length * 7.4 + 14;
      node.append(s('g', { class: 'badge' + (isSlow ? '' : ' bp'), transform: `translate(${x + W - bw - 6}, ${y - 9})` },
        s('rect', { width: bw, height: 16, rx: 8 }), text(7, 11.5, label)));
    }
    svg.append(node);
  }
  return svg;
}
